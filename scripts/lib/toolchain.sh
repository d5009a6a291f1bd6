# Sourced by the scripts: finds a JDK >= 21 and Maven (exporting JAVA_HOME and PATH) or stops with one line; builds modules quietly.
# Default `java` on these machines is 17, so the JDK is chosen here, never taken from PATH.

parley_java_major() { # $1: a java executable; prints its feature version (17, 21, 25, ...) or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1
}

parley_find_jdk() {
  local candidate major best="" best_major=0
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    major=$(parley_java_major "$JAVA_HOME/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then
      echo "$JAVA_HOME"
      return 0
    fi
  fi
  for candidate in "${PARLEY_JVM_DIR:-/usr/lib/jvm}"/*; do
    [ -x "$candidate/bin/javac" ] || continue
    [ -L "$candidate" ] && continue
    major=$(parley_java_major "$candidate/bin/java")
    [ -n "$major" ] || continue
    if [ "$major" -ge 21 ] 2>/dev/null && [ "$major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$major"
    fi
  done
  [ -n "$best" ] || return 1
  echo "$best"
}

parley_require_toolchain() {
  local jdk
  if ! jdk=$(parley_find_jdk); then
    echo "error: Parley needs a JDK 21 or newer: JAVA_HOME (${JAVA_HOME:-unset}) is not one and none was found under ${PARLEY_JVM_DIR:-/usr/lib/jvm}; install one (e.g. Temurin 21) or set JAVA_HOME to it." >&2
    exit 1
  fi
  export JAVA_HOME="$jdk"
  export PATH="$JAVA_HOME/bin:$PATH"
  # Maven's own Guava calls sun.misc.Unsafe, which JDK 23+ warns about on every run; allow it quietly.
  if [ "$(parley_java_major "$JAVA_HOME/bin/java")" -ge 23 ] 2>/dev/null; then
    case " ${MAVEN_OPTS:-} " in
      *sun-misc-unsafe-memory-access*) ;;
      *) export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" ;;
    esac
  fi
  if ! command -v mvn >/dev/null 2>&1; then
    echo "error: Parley builds with Maven 3.8 or newer, and 'mvn' is not on PATH; install it (apt-get install maven)." >&2
    exit 1
  fi
}

parley_install_module() { # $1: a module; builds it and what it depends on, quietly unless the build fails
  local build_log
  build_log=$(mktemp)
  if ! mvn -B -q -ntp -DskipTests -pl "$1" -am install >"$build_log" 2>&1; then
    cat "$build_log" >&2
    rm -f "$build_log"
    echo "error: building $1 failed (Maven's output above)." >&2
    exit 1
  fi
  rm -f "$build_log"
}
