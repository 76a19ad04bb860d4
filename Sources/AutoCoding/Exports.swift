// `import AutoCoding` is the whole package: the macros declared here, the object layer (`AutoCodingCore`) and the
// engine (`AutoCodingFast`). Code that needs no macro can import `AutoCodingCore` and build without swift-syntax.
@_exported import AutoCodingCore
