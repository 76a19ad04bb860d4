// `import AutoCoding` brings the engine's types (KeyedArchive, ArchiveValue, ArchiveError …) along.
@_exported import AutoCodingFast
