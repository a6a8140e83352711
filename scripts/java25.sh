# Sourced by ./gitm, ./run-tests and .ci/run: sets JAVA_HOME to a Java 25 or newer, or explains what to install.
# Order: $JAVA_HOME, the usual JVM folders, then the java on PATH.
gitm_java_major() {
  local v=""
  # the JDK's release file names its version without starting a JVM; else ask the JVM
  [ -f "$1/release" ] && v=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$1/release" | head -n1)
  [ -n "$v" ] || v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = //p' | head -n1)
  echo "${v%%.*}"
}
gitm_find_java() {
  local c m
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25* /usr/lib/jvm/* /opt/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -n "$c" ] && [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    m=$(gitm_java_major "$c")
    if [ -n "$m" ] && [ "$m" -ge 25 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  if command -v javac >/dev/null 2>&1; then
    c=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    m=$(gitm_java_major "$c")
    if [ -n "$m" ] && [ "$m" -ge 25 ] 2>/dev/null; then echo "$c"; return 0; fi
  fi
  return 1
}
if ! GITM_JAVA_HOME=$(gitm_find_java); then
  echo "gitm: no Java 25 JDK found (looked at \$JAVA_HOME, /usr/lib/jvm, PATH). Install Temurin 25 (e.g. 'apt-get install temurin-25-jdk' from Adoptium's repository) or set JAVA_HOME to a JDK 25." >&2
  return 1 2>/dev/null || exit 1
fi
export JAVA_HOME="$GITM_JAVA_HOME"
