# What the tests drive besides Maven: Chromium with its driver (the chat page's browser tests) and tmux (the
# terminal chat's test). Installed from Debian when missing and this runs as root; otherwise those tests skip, and this
# says how to enable them.
parley_test_tools() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  command -v tmux >/dev/null 2>&1 || missing+=(tmux)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test: installing ${missing[*]} for the browser and terminal tests (apt-get)" >&2
    if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >/dev/null 2>&1; then
      return 0
    fi
    echo "scripts/test: WARNING: apt-get could not install ${missing[*]}; the tests that need them will be skipped" >&2
  else
    echo "scripts/test: WARNING: ${missing[*]} missing and not root; the browser and terminal chat tests will be skipped." >&2
    echo "scripts/test:   enable them with: sudo apt-get install chromium chromium-driver tmux" >&2
  fi
}

# The pinned CDK command line (package.json), for the test that runs the documented `npx cdk synth`: `npm ci` when npm is
# there. It works offline from npm's cache once installed; where it cannot install, that one test is skipped and says why.
parley_cdk_cli_for_tests() {
  if ! command -v npm >/dev/null 2>&1; then
    echo "scripts/test: WARNING: npm is missing; the test of 'npx cdk synth' and the TypeScript client's build and tests (clients/js: unit, against the local cloud, in Chromium) will be skipped (install Node.js 20 or newer)" >&2
    return 0
  fi
  echo "scripts/test: installing the pinned CDK command line (npm ci)" >&2
  if ! npm ci --no-audit --no-fund --prefer-offline >/dev/null 2>&1; then
    echo "scripts/test: WARNING: npm ci failed (is the npm registry or npm's cache there?); the test of 'npx cdk synth' will be skipped" >&2
  fi
}
