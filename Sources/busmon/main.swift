// busmon's entry point; what it does lives in BusmonApp, where tests can reach it.
import BusmonApp
import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

exit(
    Busmon.run(
        arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
        undecodable: Busmon.undecodableArguments())
)
