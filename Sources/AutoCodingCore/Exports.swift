// `import AutoCodingCore` (and so `import AutoCoding`) brings the engine's types (KeyedArchive, ArchiveValue, ArchiveError …) along.
@_exported import AutoCodingFast
