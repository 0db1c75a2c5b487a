import XCTest

@testable import HTTP2Transport

/// `ConnectionLifecycle`: every event in every state. The table lists, per state, the events that
/// change something; every other event must leave the state as it is and ask for nothing.
final class ConnectionLifecycleTests: XCTestCase {
    typealias State = ConnectionLifecycle
    typealias Event = ConnectionLifecycle.Event
    typealias Action = ConnectionLifecycle.Action

    static let states: [State] = [
        .accepted, .silent, .handshaking, .open, .goingAway(.closeWhenIdle), .goingAway(.keepOpen),
        .closingWhenWritten(reset: true, wentAway: false), .closingWhenWritten(reset: false, wentAway: true),
        .closingWhenSessionReturns(reset: true, wentAway: false),
        .closingWhenSessionReturns(reset: false, wentAway: true),
        .closed,
    ]

    static let events: [Event] = [
        .start(tls: false), .start(tls: true), .startSilently, .handshakeFinished, .handshakeTimedOut,
        .goAway(closeAfter: 0), .goAway(closeAfter: -1), .goAway(closeAfter: 1.5), .goAway(closeAfter: nil),
        .shutdown(drainTimeout: 5), .closeAfterWriting(reset: true),
        .close(reset: true, whileReceiving: false), .close(reset: false, whileReceiving: true),
        .received(failed: false), .received(failed: true),
        .written(sessionDone: true, streamsOpen: true), .written(sessionDone: false, streamsOpen: false),
        .written(sessionDone: false, streamsOpen: true),
    ]

    /// What a close before the session starts looks like: the handler never heard of the connection.
    static let closeUnopened: [Event: (State, Action)] = [
        .shutdown(drainTimeout: 5): (.closed, .close(reset: false, notifyHandler: false)),
        .closeAfterWriting(reset: true): (.closed, .close(reset: true, notifyHandler: false)),
        .close(reset: true, whileReceiving: false): (.closed, .close(reset: true, notifyHandler: false)),
        .close(reset: false, whileReceiving: true): (.closed, .close(reset: false, notifyHandler: false)),
    ]

    /// GOAWAY from a state whose session runs: `then` is the state it leads to for a `closeAfter`.
    static func goAways(_ then: (Double?) -> State) -> [Event: (State, Action)] {
        [
            .goAway(closeAfter: 0): (then(0), .sendGoAway(closeAfter: 0)),
            .goAway(closeAfter: -1): (then(-1), .sendGoAway(closeAfter: -1)),
            .goAway(closeAfter: 1.5): (then(1.5), .sendGoAway(closeAfter: 1.5)),
            .goAway(closeAfter: nil): (then(nil), .sendGoAway(closeAfter: nil)),
        ]
    }

    static func afterGoAway(_ closeAfter: Double?) -> State {
        (closeAfter ?? 1) > 0 ? .goingAway(.keepOpen) : .goingAway(.closeWhenIdle)
    }

    /// The transitions out of `state`, events not listed excepted.
    static func transitions(from state: State) -> [Event: (State, Action)] {
        let serving: [Event: (State, Action)] = [
            .close(reset: true, whileReceiving: false): (.closed, .close(reset: true, notifyHandler: true)),
            .received(failed: false): (state, .keepReading),
            .received(failed: true): (state, .flushThenClose),
        ]
        switch state {
        case .accepted:
            return closeUnopened.merging([
                .start(tls: false): (.open, .serveCleartext),
                .start(tls: true): (.handshaking, .beginHandshake),
                .startSilently: (.silent, .listenSilently),
            ]) { $1 }
        case .silent:
            return closeUnopened
        case .handshaking:
            return closeUnopened.merging([
                .handshakeFinished: (.open, .beginSession),
                .handshakeTimedOut: (.closed, .close(reset: false, notifyHandler: false)),
            ]) { $1 }
        case .open:
            return serving.merging(goAways(afterGoAway)) { $1 }.merging([
                .shutdown(drainTimeout: 5): (.goingAway(.closeWhenIdle), .sendShutdownGoAway(drainTimeout: 5)),
                .closeAfterWriting(reset: true): (.closingWhenWritten(reset: true, wentAway: false), .flush),
                .close(reset: false, whileReceiving: true): (
                    .closingWhenSessionReturns(reset: false, wentAway: false), .none
                ),
                .written(sessionDone: true, streamsOpen: true): (.closed, .close(reset: false, notifyHandler: true)),
            ]) { $1 }
        case .goingAway(let after):
            var table = serving.merging(goAways(afterGoAway)) { $1 }.merging([
                .closeAfterWriting(reset: true): (.closingWhenWritten(reset: true, wentAway: true), .flush),
                .close(reset: false, whileReceiving: true): (
                    .closingWhenSessionReturns(reset: false, wentAway: true), .none
                ),
            ]) { $1 }
            if after == .closeWhenIdle {
                table[.written(sessionDone: true, streamsOpen: true)] = (
                    .closed, .close(reset: false, notifyHandler: true)
                )
                table[.written(sessionDone: false, streamsOpen: false)] = (
                    .closed, .close(reset: false, notifyHandler: true)
                )
            }
            return table
        case .closingWhenWritten(let reset, let wentAway):
            var table: [Event: (State, Action)] = goAways { _ in .closingWhenWritten(reset: reset, wentAway: true) }
                .merging([
                    .closeAfterWriting(reset: true): (.closingWhenWritten(reset: true, wentAway: wentAway), .flush),
                    .close(reset: true, whileReceiving: false): (.closed, .close(reset: true, notifyHandler: true)),
                    .close(reset: false, whileReceiving: true): (
                        .closingWhenSessionReturns(reset: false, wentAway: wentAway), .none
                    ),
                    .received(failed: false): (state, .flushAndStopReading),
                    .received(failed: true): (state, .flushAndStopReading),
                    .written(sessionDone: true, streamsOpen: true): (
                        .closed, .close(reset: reset, notifyHandler: true)
                    ),
                    .written(sessionDone: false, streamsOpen: false): (
                        .closed, .close(reset: reset, notifyHandler: true)
                    ),
                    .written(sessionDone: false, streamsOpen: true): (
                        .closed, .close(reset: reset, notifyHandler: true)
                    ),
                ]) { $1 }
            if !wentAway {
                table[.shutdown(drainTimeout: 5)] = (
                    .closingWhenWritten(reset: reset, wentAway: true), .sendShutdownGoAway(drainTimeout: 5)
                )
            }
            return table
        case .closingWhenSessionReturns(let reset, let wentAway):
            var table: [Event: (State, Action)] = goAways { _ in
                .closingWhenSessionReturns(reset: reset, wentAway: true)
            }.merging([
                .close(reset: true, whileReceiving: false): (.closed, .close(reset: true, notifyHandler: true)),
                // The latest close asked for decides TCP RST or FIN.
                .close(reset: false, whileReceiving: true): (
                    .closingWhenSessionReturns(reset: false, wentAway: wentAway), .none
                ),
                .received(failed: false): (.closed, .close(reset: reset, notifyHandler: true)),
                .received(failed: true): (.closed, .close(reset: reset, notifyHandler: true)),
            ]) { $1 }
            if !wentAway {
                table[.shutdown(drainTimeout: 5)] = (
                    .closingWhenSessionReturns(reset: reset, wentAway: true),
                    .sendShutdownGoAway(drainTimeout: 5)
                )
            }
            return table
        case .closed:
            return [:]
        }
    }

    func testEveryEventInEveryState() {
        for state in ConnectionLifecycleTests.states {
            let table = ConnectionLifecycleTests.transitions(from: state)
            for event in ConnectionLifecycleTests.events {
                var machine = state
                let action = machine.handle(event)
                let (expectedState, expectedAction) = table[event] ?? (state, .none)
                XCTAssertEqual(machine, expectedState, "\(event) in \(state): state")
                XCTAssertEqual(action, expectedAction, "\(event) in \(state): action")
            }
        }
    }

    func testQueries() {
        // state: (isOpen, sessionRuns, isClosed)
        let expected: [(State, Bool, Bool, Bool)] = [
            (.accepted, false, false, false),
            (.silent, false, false, false),
            (.handshaking, false, false, false),
            (.open, true, true, false),
            (.goingAway(.closeWhenIdle), false, true, false),
            (.goingAway(.keepOpen), false, true, false),
            (.closingWhenWritten(reset: true, wentAway: false), true, true, false),
            (.closingWhenWritten(reset: false, wentAway: true), false, true, false),
            (.closingWhenSessionReturns(reset: true, wentAway: false), true, true, false),
            (.closingWhenSessionReturns(reset: false, wentAway: true), false, true, false),
            (.closed, false, false, true),
        ]
        XCTAssertEqual(expected.count, ConnectionLifecycleTests.states.count)
        for (state, isOpen, sessionRuns, isClosed) in expected {
            XCTAssertEqual(state.isOpen, isOpen, "\(state).isOpen")
            XCTAssertEqual(state.sessionRuns, sessionRuns, "\(state).sessionRuns")
            XCTAssertEqual(state.isClosed, isClosed, "\(state).isClosed")
        }
    }

    /// Requests that complete once a close is decided are not served (issue 13).
    func testCloseDecidedOnlyWhileACloseWaits() {
        for state in ConnectionLifecycleTests.states {
            let waiting: Bool
            switch state {
            case .closingWhenWritten, .closingWhenSessionReturns: waiting = true
            default: waiting = false
            }
            XCTAssertEqual(state.closeDecided, waiting, "\(state).closeDecided")
        }
        var machine = State.open
        XCTAssertFalse(machine.closeDecided)
        _ = machine.handle(.close(reset: true, whileReceiving: true))
        XCTAssertTrue(machine.closeDecided)
        machine = .open
        _ = machine.handle(.closeAfterWriting(reset: false))
        XCTAssertTrue(machine.closeDecided)
    }

    /// A whole life: TLS, requests, GOAWAY keeping the socket, a close asked for inside a callback.
    func testALife() {
        var machine = State.accepted
        XCTAssertEqual(machine.handle(.start(tls: true)), .beginHandshake)
        XCTAssertEqual(machine.handle(.handshakeFinished), .beginSession)
        XCTAssertEqual(machine.handle(.received(failed: false)), .keepReading)
        XCTAssertEqual(machine.handle(.written(sessionDone: false, streamsOpen: true)), .none)
        XCTAssertEqual(machine.handle(.goAway(closeAfter: nil)), .sendGoAway(closeAfter: nil))
        XCTAssertEqual(machine.handle(.written(sessionDone: false, streamsOpen: false)), .none, "kept open")
        XCTAssertEqual(machine.handle(.close(reset: true, whileReceiving: true)), .none)
        XCTAssertEqual(machine, .closingWhenSessionReturns(reset: true, wentAway: true))
        XCTAssertEqual(machine.handle(.received(failed: false)), .close(reset: true, notifyHandler: true))
        XCTAssertEqual(machine.handle(.close(reset: false, whileReceiving: false)), .none)
        XCTAssertEqual(machine, .closed)
    }
}
