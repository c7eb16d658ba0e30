/// The methods and notifications aria2c 1.36 lists (`system.listMethods`,
/// `system.listNotifications`), in its order: every one is answered (R72).
public enum Aria2Method: String, Sendable, CaseIterable {
    case addUri = "aria2.addUri"
    case addTorrent = "aria2.addTorrent"
    case getPeers = "aria2.getPeers"
    case addMetalink = "aria2.addMetalink"
    case remove = "aria2.remove"
    case pause = "aria2.pause"
    case forcePause = "aria2.forcePause"
    case pauseAll = "aria2.pauseAll"
    case forcePauseAll = "aria2.forcePauseAll"
    case unpause = "aria2.unpause"
    case unpauseAll = "aria2.unpauseAll"
    case forceRemove = "aria2.forceRemove"
    case changePosition = "aria2.changePosition"
    case tellStatus = "aria2.tellStatus"
    case getUris = "aria2.getUris"
    case getFiles = "aria2.getFiles"
    case getServers = "aria2.getServers"
    case tellActive = "aria2.tellActive"
    case tellWaiting = "aria2.tellWaiting"
    case tellStopped = "aria2.tellStopped"
    case getOption = "aria2.getOption"
    case changeUri = "aria2.changeUri"
    case changeOption = "aria2.changeOption"
    case getGlobalOption = "aria2.getGlobalOption"
    case changeGlobalOption = "aria2.changeGlobalOption"
    case purgeDownloadResult = "aria2.purgeDownloadResult"
    case removeDownloadResult = "aria2.removeDownloadResult"
    case getVersion = "aria2.getVersion"
    case getSessionInfo = "aria2.getSessionInfo"
    case shutdown = "aria2.shutdown"
    case forceShutdown = "aria2.forceShutdown"
    case getGlobalStat = "aria2.getGlobalStat"
    case saveSession = "aria2.saveSession"
    case multicall = "system.multicall"
    case listMethods = "system.listMethods"
    case listNotifications = "system.listNotifications"

    /// The notifications a WebSocket client may get (R73), as aria2c lists
    /// them; `onBtDownloadComplete` is listed but never sent (no BitTorrent).
    public static let notifications = ["aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
                                        "aria2.onDownloadComplete", "aria2.onDownloadError", "aria2.onBtDownloadComplete"]

    /// Whether a call of this method is answered from one task's
    /// attributes (a `getxattr` the daemon answers from memory) or from the
    /// door's own: brief enough for the server to answer on its event loop,
    /// without the hop to a pool thread and back (two wake-ups on a machine
    /// busy downloading). The rest read a table, a `ctl`, or write through
    /// the task loop, and go to the pool.
    public var isBrief: Bool {
        switch self {
        case .tellStatus, .getUris, .getFiles, .getServers, .getVersion, .getSessionInfo, .listMethods,
             .listNotifications, .addTorrent, .addMetalink, .getPeers:
            return true
        default:
            return false
        }
    }

    /// Whether the call needs the secret (R71). aria2c lets anyone list
    /// methods and notifications, and checks `system.multicall`'s token
    /// per inner call rather than on the call itself.
    var needsToken: Bool {
        switch self {
        case .multicall, .listMethods, .listNotifications: return false
        default: return true
        }
    }
}
