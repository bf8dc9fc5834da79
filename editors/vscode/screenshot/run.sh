#!/usr/bin/env bash
# Makes docs/images/vscode.png and docs/images/vscode-quickfix.png from the
# real programs: VS Code (code-server, the VS Code OSS build served to a
# browser) with this extension, packaged as a .vsix and installed as a user
# would, running a perfls built from this checkout on examples/quickstart
# after `perfls check` has measured it; driven by headless Chromium through
# puppeteer-core (shoot.mjs). Not part of CI or of any test.
#
# Needs: go, Node 20 and npm (code-server 4.100.3 is the newest release that
# runs on Node 20), a C++ toolchain and Kerberos headers for code-server's
# native modules, ripgrep (code-server's own would be downloaded from outside
# the npm registry), chromium, a JDK for the measuring. On Debian:
#   apt-get install build-essential libkrb5-dev ripgrep chromium default-jdk-headless
# Everything else (code-server, puppeteer-core, the extension's build tools)
# is installed from npm into a temporary directory that is removed at the end.
#
# Usage, from the repository root: editors/vscode/screenshot/run.sh
#   PERFLS=path      use this perfls binary instead of building one
#   CODE_SERVER_DIR  keep (or reuse) the code-server install there: an
#                    install takes minutes, mostly compiling native modules
#   CHROMIUM=path    the browser (default /usr/bin/chromium)
set -euo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$root/editors/vscode/screenshot
out=$root/docs/images
code_server_version=4.100.3
puppeteer_version=24.43.1

work=$(mktemp -d)
cs_pid=
cleanup() {
  if [ -n "$cs_pid" ]; then
    # code-server runs in its own session (setsid): its process group holds
    # the extension hosts and the perfls servers they started.
    kill -- "-$cs_pid" 2>/dev/null || true
    wait "$cs_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

die() { echo "run.sh: $*" >&2; exit 1; }
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || die "node not found: install Node 20"
[ "$node_major" = 20 ] || die "code-server $code_server_version needs Node 20 (found $node_major): pick a code-server release whose \`npm view code-server@X engines\` matches your Node"
command -v rg >/dev/null || die "ripgrep (rg) not found: apt-get install ripgrep"
[ -f /usr/include/gssapi/gssapi.h ] || die "Kerberos headers not found (code-server's kerberos module): apt-get install libkrb5-dev"
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || die "$chromium not found: apt-get install chromium, or set CHROMIUM"

export PERFLS_CACHE_DIR=$work/cache
perfls=${PERFLS:-$work/perfls}
if [ ! -x "$perfls" ]; then
  echo "building perfls"
  (cd "$root" && go build -o "$perfls" ./cmd/perfls)
fi

# Measured first, as the README's main job does, so that the editor shows
# recorded verdicts and figures (exit 1: a formula is violated on purpose).
mkdir -p "$work/ws"
cp -r "$root/examples/quickstart" "$work/ws/"
echo "measuring examples/quickstart (a few minutes)"
(cd "$work/ws" && "$perfls" check ./quickstart >"$work/check.txt") || [ $? -eq 1 ] || die "perfls check failed: see above"

# code-server from npm. Its postinstall (npm install in lib/vscode) would
# fetch ripgrep from outside the registry, so the same steps are done here
# with install scripts off, then the native modules are built and Debian's rg
# stands in for the downloaded one.
cs=${CODE_SERVER_DIR:-$work/code-server}
if [ ! -f "$cs/node_modules/code-server/lib/vscode/node_modules.asar/node-pty/build/Release/pty.node" ]; then
  echo "installing code-server $code_server_version into $cs (several minutes)"
  mkdir -p "$cs"
  (
    cd "$cs"
    [ -f package.json ] || echo '{"private": true}' >package.json
    npm install --no-audit --no-fund --ignore-scripts "code-server@$code_server_version"
    npm rebuild argon2
    cd node_modules/code-server/lib/vscode
    npm install --no-audit --no-fund --omit=dev --ignore-scripts
    # node-pty's post-install step asks npx for node-gyp; yes lets it.
    npm_config_yes=true npm rebuild kerberos @parcel/watcher @vscode/spdlog native-watchdog node-pty
    mkdir -p node_modules/@vscode/ripgrep/bin
    ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    ln -sfn node_modules node_modules.asar
    (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
    (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
  ) >"$work/code-server-install.log" 2>&1 || { tail -30 "$work/code-server-install.log"; die "code-server install failed"; }
fi
code_server=(node "$cs/node_modules/code-server/out/node/entry.js")

# The extension, packaged as the README says, from a copy of its sources.
echo "packaging the extension"
mkdir -p "$work/ext"
tar -C "$root/editors/vscode" --exclude=node_modules --exclude=out --exclude='*.vsix' -cf - . | tar -C "$work/ext" -xf -
(
  cd "$work/ext"
  npm ci --no-audit --no-fund
  npm run compile
  npx vsce package --skip-license --allow-missing-repository -o "$work/perfls.vsix"
) >"$work/ext.log" 2>&1 || { tail -30 "$work/ext.log"; die "packaging the extension failed"; }

# A fresh user: the extension installed, user settings naming the binary.
data=$work/data
mkdir -p "$data/User"
printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' >"$work/config.yaml"
"${code_server[@]}" --config "$work/config.yaml" --user-data-dir "$data" --extensions-dir "$work/exts" \
  --install-extension "$work/perfls.vsix" >"$work/install-ext.log" 2>&1 || { cat "$work/install-ext.log"; die "installing the .vsix failed"; }
cat >"$data/User/settings.json" <<JSON
{
  "perfls.path": "$perfls",
  "workbench.colorTheme": "Default Dark Modern",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "files.autoSave": "off",
  "files.hotExit": "off",
  "editor.fontSize": 14,
  "editor.minimap.enabled": false,
  "editor.stickyScroll.enabled": false,
  "editor.hover.above": false
}
JSON

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
setsid "${code_server[@]}" --config "$work/config.yaml" --bind-addr "127.0.0.1:$port" --auth none \
  --user-data-dir "$data" --extensions-dir "$work/exts" --disable-telemetry --disable-update-check \
  --disable-getting-started-override >"$work/code-server.log" 2>&1 &
cs_pid=$!
for _ in $(seq 60); do
  grep -q 'HTTP server listening' "$work/code-server.log" && break
  sleep 1
done
grep -q 'HTTP server listening' "$work/code-server.log" || { cat "$work/code-server.log"; die "code-server did not start"; }

echo "driving VS Code in headless Chromium"
mkdir -p "$work/driver"
cp "$here/shoot.mjs" "$work/driver/"
(cd "$work/driver" && echo '{"private": true, "type": "module"}' >package.json &&
  npm install --no-audit --no-fund "puppeteer-core@$puppeteer_version" >"$work/driver.log" 2>&1) || { tail -20 "$work/driver.log"; die "installing puppeteer-core failed"; }
node "$work/driver/shoot.mjs" --url "http://127.0.0.1:$port/?folder=$work/ws/quickstart" \
  --chromium "$chromium" --out "$out" || { tail -20 "$data"/logs/*/exthost*/output_logging_*/*perfls*.log 2>/dev/null; die "the driver failed"; }
echo "wrote $out/vscode.png and $out/vscode-quickfix.png"
