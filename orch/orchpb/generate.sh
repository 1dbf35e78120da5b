#!/usr/bin/env bash
# Regenerates the Go code of package orchpb from the .proto files under
# proto/ (the contract: the source of truth for both transports).
#
#   orch/orchpb/generate.sh          write the generated files here
#   orch/orchpb/generate.sh --check  fail if the committed files are stale
#
# protoc is Debian's (package protobuf-compiler, which also ships the
# well-known types under /usr/include; installed here when missing); the
# plugins come from the Go module proxy at pinned versions, the ones whose
# runtime libraries go.mod requires. google/api/annotations.proto and
# http.proto (for the google.api.http options) are read from the module cache
# copy of grpc-gateway v1, which ships them; nothing of googleapis is
# committed here. (buf did protoc's job until it was found to take 4m45s of a
# fresh CI run to build; protoc installs in seconds.)
set -euo pipefail
cd "$(dirname "$0")"

PROTOC_VERSION="libprotoc 3.21.12"
PROTOC_GEN_GO=google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC=google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
PROTOC_GEN_GATEWAY=github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway@v2.32.0
GOOGLEAPIS_MODULE=github.com/grpc-ecosystem/grpc-gateway@v1.16.0

check=false
if [ "${1:-}" = "--check" ]; then check=true; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/proto" "$work/googleapis/google/api" "$work/out"

if ! command -v protoc >/dev/null; then
  apt-get update >/dev/null && apt-get install -y protobuf-compiler libprotobuf-dev >/dev/null
fi
if [ "$(protoc --version)" != "$PROTOC_VERSION" ]; then
  echo "protoc is $(protoc --version); the committed code was made with $PROTOC_VERSION" >&2
  exit 1
fi
wkt=$(dirname "$(dirname "$(dirname "$(command -v protoc)")")")/include
if [ ! -e "$wkt/google/protobuf/duration.proto" ]; then wkt=/usr/include; fi

for tool in "$PROTOC_GEN_GO" "$PROTOC_GEN_GO_GRPC" "$PROTOC_GEN_GATEWAY"; do
  GOBIN="$work/bin" go install "$tool"
done
export PATH="$work/bin:$PATH"

googleapis=$(cd "$work" && go mod download -json "$GOOGLEAPIS_MODULE" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
cp "$googleapis/third_party/googleapis/google/api/annotations.proto" \
   "$googleapis/third_party/googleapis/google/api/http.proto" "$work/googleapis/google/api/"
cp -R proto/. "$work/proto/"

(cd "$work" && protoc -I proto -I googleapis -I "$wkt" \
  --go_out=out --go_opt=module=github.com/apitwin/apitwin/orch/orchpb \
  --go-grpc_out=out --go-grpc_opt=module=github.com/apitwin/apitwin/orch/orchpb \
  --grpc-gateway_out=out --grpc-gateway_opt=module=github.com/apitwin/apitwin/orch/orchpb \
  --grpc-gateway_opt=omit_package_doc=true \
  $(cd proto && find apitwin -name '*.proto' | sort))

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
