# Shared by scripts/fuzz.sh and scripts/limits.sh (sourced): builds swift-collections' OrderedCollections,
# AutoCodingFast and AutoCoding as static libraries with swiftc directly, without SwiftPM or swift-syntax.
# The caller sets `root` (the package), `out` (the build folder) and `opt` (swiftc flags).

collections() {
    local checkout
    for checkout in "$root/.build/checkouts/swift-collections" "$out/swift-collections"; do
        [[ -d $checkout/Sources/OrderedCollections ]] && { echo "$checkout"; return; }
    done
    git clone -q --depth 1 --branch 1.6.0 https://github.com/apple/swift-collections "$out/swift-collections" >&2
    echo "$out/swift-collections"
}

# Compiles one module into $out/lib: module name, then sources and extra flags.
module() {
    local name=$1
    shift
    swiftc "${opt[@]}" -wmo -module-name "$name" -emit-module -emit-module-path "$out/lib/$name.swiftmodule" \
        -emit-library -static -o "$out/lib/lib$name.a" -I "$out/lib" "$@"
}

build_libraries() {
    mkdir -p "$out/lib"
    local stamp=$out/lib/.stamp
    local newest
    newest=$(find Sources/AutoCodingFast Sources/AutoCodingCore Sources/AutoCoding Sources/CPlistShim -newer "$stamp" -type f 2>/dev/null | head -1 || true)
    [[ -f $stamp && -z $newest ]] && return
    local sc
    sc=$(collections)
    local features=(-enable-experimental-feature BuiltinModule -enable-experimental-feature Lifetimes
        -enable-experimental-feature InoutLifetimeDependence -enable-experimental-feature AddressableParameters
        -enable-experimental-feature AddressableTypes -enable-upcoming-feature MemberImportVisibility
    )
    # swift-collections' availability macros (its Package.swift); Linux ignores the macOS versions.
    local version
    for version in 5.0 5.1 5.6 5.7 5.8 5.9 5.10 6.0 6.1 6.2 6.3 6.4 6.5; do
        features+=(-enable-experimental-feature "AvailabilityMacro=SwiftStdlib $version:macOS 10.14.4")
    done
    echo "fuzz: building libraries into $out/lib" >&2
    local name
    for name in InternalCollectionsUtilities OrderedCollections AutoCodingFast AutoCodingCore AutoCoding; do
        # swift-collections does not change: build it once.
        [[ $name != AutoCoding* && -f $out/lib/lib$name.a ]] && continue
        local dir=$sc/Sources/$name flags=("${features[@]}")
        [[ $name == AutoCoding* ]] && dir=Sources/$name flags=(-I Sources/CPlistShim)
        local files=()
        mapfile -d '' files < <(find "$dir" -name '*.swift' -print0)
        module "$name" "${flags[@]}" "${files[@]}"
    done
    touch "$stamp"
}

macro_plugin() {
    local plugin
    plugin=$(find "$root/.build" -maxdepth 3 -name 'AutoCodingMacros-tool' -type f -perm -u+x 2>/dev/null | head -1)
    if [[ -z $plugin ]]; then
        # Building AutoCoding links the plugin executable; building the macro target alone does not.
        swift build --scratch-path "$root/.build" --target AutoCoding >&2
        plugin=$(find "$root/.build" -maxdepth 3 -name 'AutoCodingMacros-tool' -type f -perm -u+x | head -1)
    fi
    echo "$plugin"
}

