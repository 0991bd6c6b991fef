#!/usr/bin/env bash
# Re-vendor the Swagger UI and ReDoc assets /docs and /redoc serve (serving/docs_assets/) from
# npm at the versions pinned in serving/openapi.py, with their licences, verbatim but for the
# one patch below (no request to another origin). Run from the repo root:
#   bash scripts/vendor_docs_assets.sh
set -euo pipefail
swagger=$(python3 -c 'import re,sys; print(re.search(r"SWAGGER_UI_VERSION = \"([^\"]+)\"", open("serving/openapi.py").read())[1])')
redoc=$(python3 -c 'import re,sys; print(re.search(r"REDOC_VERSION = \"([^\"]+)\"", open("serving/openapi.py").read())[1])')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "swagger-ui-dist@$swagger" "redoc@$redoc" >/dev/null)
mkdir -p "$work/swagger" "$work/redoc"
tar -xzf "$work/swagger-ui-dist-$swagger.tgz" -C "$work/swagger" --strip-components=1
tar -xzf "$work/redoc-$redoc.tgz" -C "$work/redoc" --strip-components=1
out=serving/docs_assets
rm -rf "$out/swagger-ui" "$out/redoc"
mkdir -p "$out/swagger-ui" "$out/redoc"
for f in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css favicon-32x32.png LICENSE NOTICE; do
  cp "$work/swagger/$f" "$out/swagger-ui/"
done
for f in bundles/redoc.standalone.js bundles/redoc.standalone.js.LICENSE.txt LICENSE; do
  cp "$work/redoc/$f" "$out/redoc/"
done
# The one change: ReDoc's sidebar credit loads Redocly's logo from their CDN, which a host
# without internet access cannot reach. An empty data: URL fails to decode as an image, and
# ReDoc's own onError handler then leaves the logo out (the credit link and text stay).
logo='src:"https://cdn.redoc.ly/redoc/logo-mini.svg"'
grep -qF "$logo" "$out/redoc/redoc.standalone.js"
sed -i "s|$logo|src:\"data:,\"|" "$out/redoc/redoc.standalone.js"
echo "vendored swagger-ui-dist $swagger and redoc $redoc into $out"
