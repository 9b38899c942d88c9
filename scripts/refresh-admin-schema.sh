#!/usr/bin/env bash
# Refreshes the Shopify Admin GraphQL schema the tests validate the connector's documents against
# (test/fixtures/shopify/admin-schema/admin_<version>.json.gz): the introspection, with each type's
# and field's required scopes and protected customer data, as the npm package @shopify/dev-mcp
# ships it. Run by hand when moving to a new API version (needs the npm registry):
#   scripts/refresh-admin-schema.sh 2026-10 [dev-mcp version]
# The package is not a dependency: it brings ~300 packages (the Shopify CLI, Hydrogen, React Router)
# and pages of peer-dependency warnings to every install, for one data file.
set -euo pipefail
api_version="${1:?usage: scripts/refresh-admin-schema.sh <API version, e.g. 2026-10> [dev-mcp version]}"
package="@shopify/dev-mcp@${2:-latest}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$(cd "$work" && npm pack "$package" --silent)"
tar -xzf "$work/$tarball" -C "$work" "package/dist/data/admin_${api_version}.json.gz"
target="$(dirname "$0")/../test/fixtures/shopify/admin-schema/admin_${api_version}.json.gz"
mkdir -p "$(dirname "$target")"
cp "$work/package/dist/data/admin_${api_version}.json.gz" "$target"
echo "wrote $target from $package"
