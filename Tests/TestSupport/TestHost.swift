/// What a Linux and a macOS test host have, side by side: the tests ask here instead of naming
/// a locale or a device only one of them has.
package enum TestHost {
    /// A UTF-8 locale every test host has: Linux has `C.UTF-8` and often nothing else; macOS has
    /// no `C.UTF-8` (a program given it falls back to ASCII) but always has `en_US.UTF-8`.
    package static let utf8Locale: String = {
        #if canImport(Darwin)
            "en_US.UTF-8"
        #else
            "C.UTF-8"
        #endif
    }()

    /// A file every write to fails with `ENOSPC`, as on a full disk: Linux's `/dev/full`.
    /// macOS has no such device, so the tests that need one do not run there (`nil`).
    package static let fullDevice: String? = {
        #if os(Linux)
            "/dev/full"
        #else
            nil
        #endif
    }()
}
