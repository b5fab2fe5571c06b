/// Checks server addresses before nats.c sees them, so that a typing mistake gets a message
/// that names it rather than a connection error.
package enum NATSServerURL {
    /// Throws unless `text` is one or more comma-separated `nats://` (or `tls://`) URLs with a
    /// host and, if given, a port from 1 to 65535.
    package static func validate(_ text: String) throws(NATSBridgeError) {
        guard !text.isEmpty else { throw .invalidURL(text, reason: "it is empty") }
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let url = part.trimmingSpaces()
            // Messages name the URL without its password or token.
            let shown = redacted(String(url))
            guard let schemeEnd = url.firstRange(of: "://") else {
                throw .invalidURL(text, reason: "'\(shown)' has no scheme")
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
                throw .invalidURL(text, reason: "'\(shown)' has a path or spaces after the host")
            }
            let host: Substring
            let port: Substring?
            if rest.hasPrefix("[") {
                // An IPv6 literal: [::1]:4222.
                guard let close = rest.firstIndex(of: "]") else {
                    throw .invalidURL(text, reason: "'\(shown)' has an unclosed [")
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
            guard !host.isEmpty else { throw .invalidURL(text, reason: "'\(shown)' names no host") }
            // Letters, digits, `-`, `.` and `_` (and an IPv6 literal's `:` and zone `%`): a host
            // with an escape or a `*` in it was tried for the whole run, as one that is down.
            let isIPv6 = rest.hasPrefix("[")
            guard
                host.allSatisfy({ character in
                    character.isASCII
                        && (character.isLetter || character.isNumber || "-._".contains(character)
                            || (isIPv6 && ":%".contains(character)))
                })
            else {
                throw .invalidURL(text, reason: "the host '\(host)' holds a character no host name has")
            }
            if let port {
                guard let number = Int(port), (1...65_535).contains(number) else {
                    throw .invalidURL(text, reason: "the port '\(port)' is not a number from 1 to 65535")
                }
            }
        }
    }
}

extension NATSServerURL {
    /// `text` with the password or token of each URL in it replaced by `***`:
    /// `nats://alice:***@host:4222`, `nats://***@host:4222`. What busmon and the bridge print,
    /// record or name a fleet by, since terminals, logs and recordings are read by others.
    package static func redacted(_ text: String) -> String {
        var shown = ""
        var rest = Substring(text)
        for (start, end) in credentials(in: text) {
            let userInfo = text[start..<end]
            shown += text[rest.startIndex..<start]
            shown += userInfo.firstIndex(of: ":").map { "\(userInfo[..<$0]):***" } ?? "***"
            rest = text[end...]
        }
        return shown + rest
    }

    /// The passwords and tokens of the URLs in `text`, to hide them from the command line.
    package static func secrets(in text: String) -> [String] {
        credentials(in: text).compactMap { start, end in
            let userInfo = text[start..<end]
            let secret =
                userInfo.firstIndex(of: ":").map { userInfo[userInfo.index(after: $0)...] } ?? userInfo
            return secret.isEmpty ? nil : String(secret)
        }
    }

    /// Where the user information of each URL in `text` lies (`alice:secret` in
    /// `nats://alice:secret@h:1`): from a `://` to the last `@` before the next URL's `://`, so
    /// that a comma or an `@` in a password stays in it. Text without a scheme that has an `@`
    /// (a mistyped URL, told back in an error) counts as user information up to it.
    private static func credentials(in text: String) -> [(String.Index, String.Index)] {
        var schemes: [Range<String.Index>] = []
        var searchFrom = text.startIndex
        while let found = text[searchFrom...].firstRange(of: "://") {
            schemes.append(found)
            searchFrom = found.upperBound
        }
        guard !schemes.isEmpty else {
            return text.lastIndex(of: "@").map { [(text.startIndex, $0)] } ?? []
        }
        return schemes.indices.compactMap { index in
            let start = schemes[index].upperBound
            // Up to the next scheme, less the name of that scheme and the comma before it.
            let limit = index + 1 < schemes.count ? schemes[index + 1].lowerBound : text.endIndex
            guard let at = text[start..<limit].lastIndex(of: "@") else { return nil }
            return (start, at)
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
