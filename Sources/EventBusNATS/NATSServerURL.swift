/// Checks server addresses before nats.c sees them, so that a typing mistake gets a message
/// that names it rather than a connection error.
package enum NATSServerURL {
    /// Throws unless `text` is one or more comma-separated `nats://` (or `tls://`) URLs with a
    /// host and, if given, a port from 1 to 65535.
    package static func validate(_ text: String) throws(NATSBridgeError) {
        guard !text.isEmpty else { throw .invalidURL(text, reason: "it is empty") }
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let url = part.trimmingSpaces()
            guard let schemeEnd = url.firstRange(of: "://") else {
                throw .invalidURL(text, reason: "'\(url)' has no scheme")
            }
            let scheme = url[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "nats" || scheme == "tls" else {
                throw .invalidURL(text, reason: "the scheme is '\(scheme)', not nats or tls")
            }
            var rest = url[schemeEnd.upperBound...]
            if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            let forbidden: Set<Character> = [" ", "/", "?", "#"]
            guard !rest.contains(where: forbidden.contains) else {
                throw .invalidURL(text, reason: "'\(url)' has a path or spaces after the host")
            }
            let host: Substring
            let port: Substring?
            if rest.hasPrefix("[") {
                // An IPv6 literal: [::1]:4222.
                guard let close = rest.firstIndex(of: "]") else {
                    throw .invalidURL(text, reason: "'\(url)' has an unclosed [")
                }
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                port = after.isEmpty ? nil : (after.hasPrefix(":") ? after.dropFirst() : "x")
            } else if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                port = rest[rest.index(after: colon)...]
            } else {
                host = rest
                port = nil
            }
            guard !host.isEmpty else { throw .invalidURL(text, reason: "'\(url)' names no host") }
            if let port {
                guard let number = Int(port), (1...65_535).contains(number) else {
                    throw .invalidURL(text, reason: "the port '\(port)' is not a number from 1 to 65535")
                }
            }
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    fileprivate func trimmingSpaces() -> Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { $0 != " " }) else { return text[text.endIndex...] }
        let last = text.lastIndex(where: { $0 != " " })!
        return text[first...last]
    }
}
