import Catalog
import DownloadFSCore
import Glibc

/// The writers waiting on the loop, by the token their request carries into
/// the task set, each with how to turn the set's `TaskSetReply` into the
/// answer its writer waits for. The loop thread only.
struct PendingReplies {
    typealias Answer = (Result<TaskSetReply, CatalogError>) -> Void

    private var answers: [UInt64: Answer] = [:]
    private var nextToken: UInt64 = 1
    /// Tokens of this turn's user requests: answered with the error if the turn is undone.
    private var thisTurn: [UInt64] = []

    /// The task set's request for a user's message, its answer filed by token;
    /// nil for a message that is no user request.
    mutating func file(_ message: LoopMessage) -> TaskSetRequest? {
        let token = nextToken
        let request: TaskSetRequest
        switch message {
        case .add(let entries, let reply):
            answers[token] = { result in reply.answer(result.map { if case .ids(let ids) = $0 { ids } else { [] } }) }
            request = .add(entries, token: token)
        case .control(let id, let command, let reply):
            answers[token] = Self.controlAnswer(reply)
            request = .control(id, command, token: token)
        case .controlGlobal(let command, let reply):
            answers[token] = Self.controlAnswer(reply)
            request = .controlGlobal(command, token: token)
        case .remove(let id, let reply):
            answers[token] = { result in reply.answer(result.map { _ in () }) }
            request = .remove(id, token: token)
        case .rename(let id, let name, let reply):
            answers[token] = Self.renameAnswer(reply)
            request = .rename(id, to: name, token: token)
        case .renameFile(let name, let newName, let isFolder, let reply):
            answers[token] = Self.renameAnswer(reply)
            request = .renameFile(name, to: newName, isFolder: isFolder, token: token)
        case .makeFolder(let path, let reply):
            answers[token] = Self.renameAnswer(reply)
            request = .makeFolder(path, token: token)
        case .event, .read, .shutdown:
            return nil
        }
        nextToken += 1
        thisTurn.append(token)
        return request
    }

    mutating func answer(_ token: UInt64, _ result: Result<TaskSetReply, CatalogError>) {
        answers.removeValue(forKey: token)?(result)
    }

    /// The turn's requests were undone: each writer not yet answered gets the error.
    mutating func failTurn(_ error: CatalogError) {
        for token in thisTurn { answer(token, .failure(error)) }
        thisTurn = []
    }

    /// The turn's requests were committed (their replies come from the set).
    mutating func endTurn() { thisTurn = [] }

    private static func controlAnswer(_ reply: LoopReply<Void, ControlCommandError>) -> Answer {
        { result in
            switch result {
            case .success(.refused(let why)): reply.answer(.failure(ControlCommandError(why)))
            case .success: reply.answer(.success(()))
            case .failure(let error): reply.answer(.failure(ControlCommandError(error.message)))
            }
        }
    }

    private static func renameAnswer(_ reply: LoopReply<Void, RenameError>) -> Answer {
        { result in
            switch result {
            case .success(.renameRefused(let error)): reply.answer(.failure(error))
            case .success: reply.answer(.success(()))
            case .failure: reply.answer(.failure(.io(EIO)))
            }
        }
    }
}
