#!/usr/bin/env bash
# Regenerates the Go code of package orchpb from the .proto files under
# proto/ (the contract: the source of truth for both transports).
#
#   orch/orchpb/generate.sh          write the generated files here
#   orch/orchpb/generate.sh --check  fail if the committed files are stale
#
# Everything comes from the Go module proxy at pinned versions: buf compiles
# the .proto files (no protoc needed), and the plugins are the ones whose
# runtime libraries go.mod requires. google/api/annotations.proto and
# http.proto (for the google.api.http options) are read from the module cache
# copy of grpc-gateway v1, which ships them; nothing of googleapis is
# committed here.
set -euo pipefail
cd "$(dirname "$0")"

BUF=github.com/bufbuild/buf/cmd/buf@v1.75.0
PROTOC_GEN_GO=google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC=google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
PROTOC_GEN_GATEWAY=github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway@v2.32.0
GOOGLEAPIS_MODULE=github.com/grpc-ecosystem/grpc-gateway@v1.16.0

check=false
if [ "${1:-}" = "--check" ]; then check=true; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/proto" "$work/googleapis/google/api" "$work/out"

for tool in "$BUF" "$PROTOC_GEN_GO" "$PROTOC_GEN_GO_GRPC" "$PROTOC_GEN_GATEWAY"; do
  GOBIN="$work/bin" go install "$tool"
done
export PATH="$work/bin:$PATH"

googleapis=$(cd "$work" && go mod download -json "$GOOGLEAPIS_MODULE" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
cp "$googleapis/third_party/googleapis/google/api/annotations.proto" \
   "$googleapis/third_party/googleapis/google/api/http.proto" "$work/googleapis/google/api/"
cp -R proto/. "$work/proto/"

cat > "$work/buf.yaml" <<'YAML'
version: v2
modules:
  - path: proto
  - path: googleapis
YAML
cat > "$work/buf.gen.yaml" <<'YAML'
version: v2
plugins:
  - local: protoc-gen-go
    out: out
    opt: module=github.com/apitwin/apitwin/orch/orchpb
  - local: protoc-gen-go-grpc
    out: out
    opt: module=github.com/apitwin/apitwin/orch/orchpb
  - local: protoc-gen-grpc-gateway
    out: out
    opt:
      - module=github.com/apitwin/apitwin/orch/orchpb
      - omit_package_doc=true
YAML
(cd "$work" && buf generate --template buf.gen.yaml --path proto/apitwin)

if $check; then
  stale=false
  for f in "$work"/out/*.go; do
    if ! cmp -s "$f" "$(basename "$f")"; then echo "stale: orch/orchpb/$(basename "$f")"; stale=true; fi
  done
  for f in *.pb.go *.pb.gw.go; do
    if [ ! -e "$work/out/$f" ]; then echo "no longer generated: orch/orchpb/$f"; stale=true; fi
  done
  if $stale; then echo "run orch/orchpb/generate.sh and commit the result"; exit 1; fi
  echo "orch/orchpb is current"
  exit 0
fi
rm -f ./*.pb.go ./*.pb.gw.go
cp "$work"/out/*.go .
