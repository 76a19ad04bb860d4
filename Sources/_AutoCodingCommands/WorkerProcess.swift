import AutoCodingCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One worker process of `batch --isolate`, seen from the parent: its pid, the socket that is its standard
/// input and output, and the last few KiB of its standard error (for the message of a crash).
///
/// Every descriptor the parent keeps is close-on-exec, so a worker never inherits another worker's socket:
/// the end of a worker is always seen as the end of its own socket.
final class WorkerProcess {
    let pid: pid_t
    private let socket: Int32
    private var errors: Int32
    private var received: [UInt8] = []
    /// The end of the worker's standard error, at most ``errorTailSize`` bytes.
    private(set) var errorTail: [UInt8] = []
    private var isReaped = false
    static let errorTailSize = 4096

    /// How the wait for a line ended.
    enum Wait {
        case line(String)
        case ended
        case timedOut
    }

    /// How the process ended: its `wait` status and the CPU seconds it used.
    struct Ending {
        var status: Int32
        var cpuSeconds: Double

        /// The signal that ended the process, or nil if it exited.
        var signal: Int32? { status & 0x7f == 0 ? nil : status & 0x7f }
        /// The exit status, or nil if a signal ended the process.
        var exitStatus: Int32? { status & 0x7f == 0 ? (status >> 8) & 0xff : nil }
    }

    /// Starts `executable arguments…` with `environment`, its standard input and output one end of a socket
    /// pair and its standard error a pipe.
    init(executable: String, arguments: [String], environment: [String]) throws {
        // Socket pairs rather than pipes: they are created close-on-exec atomically (SOCK_CLOEXEC), so a worker
        // started by another thread at the same moment cannot inherit them.
        var pair: [Int32] = [-1, -1]
        var pipe: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            throw ArchiveError.fileAccess("socketpair", "worker socket", errnoCode: errno)
        }
        guard socketpair(AF_UNIX, type, 0, &pipe) == 0 else {
            let code = errno
            close(pair[0])
            close(pair[1])
            throw ArchiveError.fileAccess("socketpair", "worker standard error", errnoCode: code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies, so the worker keeps exactly its fds 0, 1 and 2.
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let code = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(pair[1])
        close(pipe[1])
        guard code == 0 else {
            close(pair[0])
            close(pipe[0])
            throw ArchiveError.fileAccess("start worker", executable, errnoCode: code)
        }
        pid = child
        socket = pair[0]
        errors = pipe[0]
    }

    deinit {
        if !isReaped { _ = reap(kill: true) }
        close(socket)
        if errors >= 0 { close(errors) }
    }

    /// Sends a whole request; throws when the worker is gone (`EPIPE`), never raises `SIGPIPE`.
    func send(_ bytes: [UInt8]) throws {
        try DescriptorIO.writeAll(socket, bytes, socket: true, name: "worker \(pid)")
    }

    /// Waits for the next line from the worker until `deadline` (monotonic nanoseconds; nil for no limit),
    /// keeping the end of its standard error meanwhile.
    func readLine(deadline: UInt64?) throws -> Wait {
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: received[..<newline], as: UTF8.self)
                received.removeSubrange(...newline)
                return .line(line)
            }
            var timeout: Int32 = -1
            if let deadline {
                let now = Monotonic.nanoseconds()
                if now >= deadline { return .timedOut }
                timeout = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
            if errors >= 0 { fds.append(pollfd(fd: errors, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw ArchiveError.fileAccess("poll", "worker \(pid)", errnoCode: errno)
            }
            if ready == 0 { continue }  // The deadline check above decides.
            if fds.count > 1 && fds[1].revents != 0 { try drainErrors() }
            if fds[0].revents != 0 {
                if try DescriptorIO.read(socket, into: &received, upTo: 1 << 16, name: "worker \(pid)") == 0 {
                    return .ended
                }
            }
        }
    }

    /// Reads what the worker wrote on standard error, keeping the last ``errorTailSize`` bytes.
    private func drainErrors() throws {
        guard errors >= 0 else { return }
        if try DescriptorIO.read(errors, into: &errorTail, upTo: 1 << 14, name: "worker \(pid) stderr") == 0 {
            close(errors)
            errors = -1
        }
        if errorTail.count > Self.errorTailSize { errorTail.removeFirst(errorTail.count - Self.errorTailSize) }
    }

    /// Waits for the process to end (after `SIGKILL` with `kill`) and collects the rest of its standard error.
    func reap(kill shouldKill: Bool) -> Ending {
        if shouldKill { kill(pid, SIGKILL) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        isReaped = true
        // The worker is gone; read what is left of its standard error (waiting at most 100 ms for each part).
        while errors >= 0 {
            var fds = [pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 100) > 0, (try? drainErrors()) != nil else { break }
        }
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return Ending(status: status, cpuSeconds: cpu)
    }

    /// Ends a worker that is idle: closing its socket is its signal to exit.
    func finish() {
        shutdown(socket, Int32(SHUT_RDWR))
        _ = reap(kill: false)
    }
}
