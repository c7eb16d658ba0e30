/// A handle with something to free when its last descriptor is gone.
protocol FileReleaser: OpenFile {
    func release()
}
