#!/usr/bin/env bash
# Installs what the package needs on a fresh Debian/Ubuntu machine with Swift: libplist's and SQLite's headers
# and pkg-config files.
set -euo pipefail
if ! pkg-config --exists libplist-2.0 sqlite3 2>/dev/null; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq libplist-dev libsqlite3-dev pkg-config
fi
