# What the end-to-end tests drive besides Maven: Chromium with its driver (the chat page's browser tests) and tmux (the
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
