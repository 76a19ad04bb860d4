import ArgumentParser
import AutoCoding
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libplist's C functions, looked up with dlopen/dlsym so that the harness needs no C target: each call is the
/// same indirect call a C program makes through its PLT. The walk visits every node with libplist's iterators
/// and reads each value (strings and data by pointer, as a C consumer would, without copies).
final class LibplistC: @unchecked Sendable {
    typealias Node = UnsafeMutableRawPointer
    private typealias FromBytes =
        @convention(c) (UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Void
    private typealias ToBin =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UnsafeMutablePointer<UInt32>?
        ) -> Void
    private typealias NodeFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias BufferFree = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void
    private typealias TypeFunction = @convention(c) (UnsafeMutableRawPointer?) -> UInt32
    private typealias SizeFunction = @convention(c) (UnsafeMutableRawPointer?) -> UInt32
    private typealias NewIterator =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Void
    private typealias ArrayNext =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?)
        -> Void
    private typealias DictNext =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Void
    private typealias PointerGetter =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt64>?) -> UnsafePointer<CChar>?
    private typealias U64Getter = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt64>?) -> Void
    private typealias RealGetter = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Double>?) -> Void
    private typealias BoolGetter = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?) -> Void
    private typealias DateGetter =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Void
    private typealias DictGet = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer?

    static let shared: LibplistC? = LibplistC()

    let describe: String
    private let fromBin: FromBytes
    private let fromXML: FromBytes
    private let toBin: ToBin
    private let binFree: BufferFree
    private let free: NodeFunction
    private let nodeType: TypeFunction
    private let arraySize: SizeFunction
    private let arrayNewIterator: NewIterator
    private let arrayNext: ArrayNext
    private let dictNewIterator: NewIterator
    private let dictNext: DictNext
    private let stringPointer: PointerGetter
    private let dataPointer: PointerGetter
    private let uintValue: U64Getter
    private let uidValue: U64Getter
    private let realValue: RealGetter
    private let boolValue: BoolGetter
    private let dateValue: DateGetter
    private let dictGet: DictGet

    private init?() {
        let names = ["libplist-2.0.so.3", "libplist-2.0.so", "libplist-2.0.so.4", "libplist-2.0.dylib"]
        guard let (handle, soname) = names.lazy.compactMap({ name in dlopen(name, RTLD_NOW).map { ($0, name) } }).first
        else { return nil }
        func symbol<T>(_ name: String, _: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let fromBin = symbol("plist_from_bin", FromBytes.self),
            let fromXML = symbol("plist_from_xml", FromBytes.self),
            let toBin = symbol("plist_to_bin", ToBin.self),
            let free = symbol("plist_free", NodeFunction.self),
            let nodeType = symbol("plist_get_node_type", TypeFunction.self),
            let arraySize = symbol("plist_array_get_size", SizeFunction.self),
            let arrayNewIterator = symbol("plist_array_new_iter", NewIterator.self),
            let arrayNext = symbol("plist_array_next_item", ArrayNext.self),
            let dictNewIterator = symbol("plist_dict_new_iter", NewIterator.self),
            let dictNext = symbol("plist_dict_next_item", DictNext.self),
            let stringPointer = symbol("plist_get_string_ptr", PointerGetter.self),
            let dataPointer = symbol("plist_get_data_ptr", PointerGetter.self),
            let uintValue = symbol("plist_get_uint_val", U64Getter.self),
            let uidValue = symbol("plist_get_uid_val", U64Getter.self),
            let realValue = symbol("plist_get_real_val", RealGetter.self),
            let boolValue = symbol("plist_get_bool_val", BoolGetter.self),
            let dateValue = symbol("plist_get_date_val", DateGetter.self),
            let dictGet = symbol("plist_dict_get_item", DictGet.self)
        else { return nil }
        // 2.2 frees plist_to_bin's buffer with plist_to_bin_free, 2.3+ with plist_mem_free.
        guard let binFree = symbol("plist_mem_free", BufferFree.self) ?? symbol("plist_to_bin_free", BufferFree.self)
        else { return nil }
        let version = symbol("plist_mem_free", BufferFree.self) == nil ? "2.2" : "2.3+"
        describe = "\(soname) (API \(version))"
        (self.fromBin, self.fromXML, self.toBin, self.binFree, self.free) = (fromBin, fromXML, toBin, binFree, free)
        (self.nodeType, self.arraySize, self.arrayNewIterator, self.arrayNext) =
            (nodeType, arraySize, arrayNewIterator, arrayNext)
        (self.dictNewIterator, self.dictNext, self.stringPointer, self.dataPointer) =
            (dictNewIterator, dictNext, stringPointer, dataPointer)
        (self.uintValue, self.uidValue, self.realValue, self.boolValue, self.dateValue, self.dictGet) =
            (uintValue, uidValue, realValue, boolValue, dateValue, dictGet)
    }

    /// Parses a binary or XML plist; nil when libplist rejects it.
    func parse(_ bytes: [UInt8]) -> Node? {
        let isXML = bytes.count >= 8 && !bytes.starts(with: Array("bplist".utf8))
        return bytes.withUnsafeBytes { raw -> Node? in
            var root: UnsafeMutableRawPointer? = nil
            let pointer = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            (isXML ? fromXML : fromBin)(pointer, UInt32(raw.count), &root)
            return root
        }
    }

    func release(_ node: Node) { free(node) }

    /// What the walk saw: nodes visited and a checksum of the values read (so nothing is optimized away).
    struct Walk {
        var nodes = 0
        var checksum: UInt64 = 0
        var objects = -1
    }

    /// Visits every node below `node` with libplist's iterators and reads its value.
    func walk(_ node: Node, into walk: inout Walk) {
        walk.nodes += 1
        switch nodeType(node) {
        case 0:
            var value: UInt8 = 0
            boolValue(node, &value)
            walk.checksum &+= UInt64(value)
        case 1:
            var value: UInt64 = 0
            uintValue(node, &value)
            walk.checksum &+= value
        case 2:
            var value = 0.0
            realValue(node, &value)
            walk.checksum &+= value.bitPattern
        case 3, 8:
            var length: UInt64 = 0
            if let pointer = stringPointer(node, &length), length > 0 { walk.checksum &+= UInt64(UInt8(bitPattern: pointer[0])) }
            walk.checksum &+= length
        case 4:
            var iterator: UnsafeMutableRawPointer? = nil
            arrayNewIterator(node, &iterator)
            defer { Glibc.free(iterator) }
            while true {
                var item: UnsafeMutableRawPointer? = nil
                arrayNext(node, iterator, &item)
                guard let item else { break }
                self.walk(item, into: &walk)
            }
        case 5:
            var iterator: UnsafeMutableRawPointer? = nil
            dictNewIterator(node, &iterator)
            defer { Glibc.free(iterator) }
            while true {
                var item: UnsafeMutableRawPointer? = nil
                dictNext(node, iterator, nil, &item)  // no key copy: a C reader matches keys in place
                guard let item else { break }
                self.walk(item, into: &walk)
            }
        case 6:
            var seconds: Int32 = 0
            var micros: Int32 = 0
            dateValue(node, &seconds, &micros)
            walk.checksum &+= UInt64(UInt32(bitPattern: seconds))
        case 7:
            var length: UInt64 = 0
            if let pointer = dataPointer(node, &length), length > 0 { walk.checksum &+= UInt64(UInt8(bitPattern: pointer[0])) }
            walk.checksum &+= length
        case 9:
            var value: UInt64 = 0
            uidValue(node, &value)
            walk.checksum &+= value
        default:
            break
        }
    }

    /// The C floor of a read: `plist_from_bin` (or `plist_from_xml`), a full walk, `plist_free`.
    func parseWalkFree(_ bytes: [UInt8]) -> Walk? {
        guard let root = parse(bytes) else { return nil }
        var result = Walk()
        walk(root, into: &result)
        if let objects = dictGet(root, "$objects"), nodeType(objects) == 4 { result.objects = Int(arraySize(objects)) }
        free(root)
        return result
    }

    /// `plist_to_bin` of a parsed tree; returns the output's length (the buffer is freed).
    func writeBinary(_ node: Node) -> Int {
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: UInt32 = 0
        toBin(node, &buffer, &length)
        binFree(buffer)
        return Int(length)
    }

    /// `plist_to_bin` of a parsed tree, the bytes kept (for checks).
    func writeBinaryBytes(_ node: Node) -> [UInt8] {
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var length: UInt32 = 0
        toBin(node, &buffer, &length)
        defer { binFree(buffer) }
        guard let buffer else { return [] }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }
}

/// A parsed libplist tree, freed when the last reference goes.
final class LibplistTree {
    let node: LibplistC.Node
    let lib: LibplistC

    init?(_ bytes: [UInt8], lib: LibplistC) {
        guard let node = lib.parse(bytes) else { return nil }
        self.node = node
        self.lib = lib
    }

    deinit { lib.release(node) }
}
