import Glibc

extension AccountManager {
    /// This machine's name, for the device label `gbnotifyd on HOSTNAME`; "" when it has none
    /// (the label then says "unknown host").
    public static var localHostname: String {
        var buffer = [UInt8](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}
