/// A cache line of nothing, placed around data that publishes write so that no other object (nor
/// the header of the one holding it, whose reference count is written on retains) shares its
/// cache lines: a line written by two threads moves between their cores on every write.
///
/// Swift lays out a class's stored properties in declaration order, after a 16-byte header, in
/// blocks aligned to 16 bytes; a padding before and one after the written fields therefore
/// keep every line those fields touch inside the object.
///
/// A line is 64 bytes on x86_64 and on the arm64 servers Linux runs on, but 128 on Apple silicon
/// (Macs, iPhones, iPads), so the padding there is 128 bytes.
struct CacheLinePadding: Sendable {
    #if arch(arm64) && canImport(Darwin)
        private let words: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
            (
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            )
    #else
        private let words: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    #endif
}
