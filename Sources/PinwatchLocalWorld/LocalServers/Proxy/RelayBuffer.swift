import Foundation
import PinwatchProbe

/// Bytes read from one side of a tunnel and not yet written to the other.
struct RelayBuffer {
    /// Above this, the reading side stops reading until the other drains:
    /// back-pressure instead of unbounded memory.
    static let highWater = 256 * 1024

    private var bytes: [UInt8] = []
    private var offset = 0

    var isEmpty: Bool { offset >= bytes.count }
    var hasRoom: Bool { bytes.count - offset < Self.highWater }

    mutating func append(_ more: ArraySlice<UInt8>) {
        if isEmpty {
            bytes.removeAll(keepingCapacity: true)
            offset = 0
        }
        bytes.append(contentsOf: more)
    }

    mutating func removeAll() {
        bytes.removeAll()
        offset = 0
    }

    /// Writes as much as the socket takes; false when the socket failed.
    mutating func drain(into socket: Socket) -> Bool {
        while !isEmpty {
            switch socket.write(bytes[offset...]) {
            case .bytes(let count):
                offset += count
            case .wouldBlock:
                return true
            case .failed:
                return false
            }
        }
        return true
    }
}
