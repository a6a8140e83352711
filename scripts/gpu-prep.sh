#!/usr/bin/env bash
# Runs HERE (the build machine): builds gitm and lays out everything the GPU machine needs in .gpu/, which the lead
# carries there in one device call (it has no Maven and no network):
#   .gpu/jdk                  a jlinked Java 25 runtime
#   .gpu/lib/*.jar            every runtime jar: the gitm modules and their dependencies
#   .gpu/test-lib/*.jar       test-scope dependencies + junit-platform-console-standalone (JUnit itself comes only
#                             from the standalone jar, so that one Jupiter engine is on the class path)
#   .gpu/test-classes/<module>/  each module's target/test-classes
# byte-buddy (9 MB, AssertJ's soft assertions and AssertJ assumptions only) is left out: tests use JUnit's Assumptions.
# So are the AWS SDK (8.5 MB, for gitm sync only: no S3 is reachable from the GPU machine) and the S3 sync tests.
# Then .gpu is packed into .gpu-pack/gpu.tar.xz (~22 MiB), the path to carry; scripts/gpu-suite.sh unpacks it there.
# Fails when the pack and the tracked files together pass 62 MiB (a device call takes 64 MiB in all).
# GITM_PREP_TESTS=0 leaves the tests out (test-lib and test-classes, ~11 MiB unpacked) for a call that runs only the
# suite's parts (GITM_SKIP_TESTS=1). GITM_PREP_TEST_MODULES="gitm-workloads ..." takes only those modules' test
# classes, and of the test dependencies only AssertJ (with the suite's GITM_TEST_MODULES the same), for a call that
# runs some modules' GPU tests beside parts and would not fit otherwise.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
. "$root/scripts/java25.sh"
cd "$root"
mvn_opts=(-B -ntp -q ${GITM_MVN_OPTS:-})
junit_version=$(sed -n 's:.*<junit.version>\(.*\)</junit.version>.*:\1:p' pom.xml | head -n1)
dep_plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1

if [ "${GITM_PREP_SKIP_BUILD:-0}" != 1 ]; then
  echo "[gpu-prep] building (install, tests compiled but not run)"
  ./mvnw "${mvn_opts[@]}" -DskipTests install
fi

gpu="$root/.gpu"
rm -rf "$gpu"
mkdir -p "$gpu/lib" "$gpu/test-lib" "$gpu/test-classes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "[gpu-prep] copying runtime and test dependencies"
./mvnw "${mvn_opts[@]}" "$dep_plugin:copy-dependencies" -DincludeScope=runtime -DexcludeGroupIds=io.gitm,software.amazon.awssdk,org.reactivestreams \
  -DoutputDirectory="$gpu/lib"
with_tests=${GITM_PREP_TESTS:-1}
[ "$with_tests" = 1 ] && ./mvnw "${mvn_opts[@]}" "$dep_plugin:copy-dependencies" -DincludeScope=test -DexcludeGroupIds=io.gitm,org.junit.jupiter,org.junit.platform,org.junit,org.opentest4j,org.apiguardian,net.bytebuddy,software.amazon.awssdk,org.reactivestreams \
  -DoutputDirectory="$tmp/test"
[ "$with_tests" = 1 ] && ./mvnw "${mvn_opts[@]}" -N "$dep_plugin:copy" \
  -Dartifact="org.junit.platform:junit-platform-console-standalone:$junit_version" -DoutputDirectory="$gpu/test-lib"
for j in "$tmp"/test/*.jar; do
  [ -e "$j" ] || continue
  [ -e "$gpu/lib/$(basename "$j")" ] || cp "$j" "$gpu/test-lib/"
done
for m in gitm-*/; do
  m=${m%/}
  # the module's own jar only (NAME-VERSION.jar), not a shaded NAME.jar that holds its dependencies again
  for j in "$m"/target/"$m"-[0-9]*.jar; do
    case "$j" in *-sources.jar|*-javadoc.jar|*-tests.jar|*original*) continue ;; esac
    [ -f "$j" ] && cp "$j" "$gpu/lib/"
  done
  if [ "$with_tests" = 1 ] && [ -d "$m/target/test-classes" ]; then
    case " ${GITM_PREP_TEST_MODULES:-$m} " in *" $m "*) cp -r "$m/target/test-classes" "$gpu/test-classes/$m" ;; esac
  fi
done
if [ -n "${GITM_PREP_TEST_MODULES:-}" ]; then
  find "$gpu/test-lib" -name '*.jar' ! -name 'junit-platform-console-standalone-*' ! -name 'assertj-core-*' -delete
fi
rm -rf "$gpu/test-classes/gitm-trace/io/gitm/store/s3" "$gpu"/test-classes/gitm-cli/io/gitm/cli/SyncCommandTest*.class

# uncompressed: xz packs the runtime's modules file to 15 MB, against 24 MB when jlink has zipped it already
echo "[gpu-prep] linking a Java runtime"
"$JAVA_HOME/bin/jlink" --add-modules java.base,jdk.unsupported,java.management,jdk.httpserver,java.net.http,java.logging,java.xml \
  --strip-debug --no-man-pages --no-header-files --compress=zip-0 --output "$gpu/jdk"

# Temurin ships libjvm.so with its symbol table (29 MB); without it, 24 MB. Debug symbols are of no use there.
if command -v strip >/dev/null 2>&1; then
  find "$gpu/jdk" -name '*.so' -exec strip --strip-unneeded {} +
fi
"$gpu/jdk/bin/java" -version >/dev/null 2>&1 || { echo "[gpu-prep] the linked runtime does not start" >&2; exit 1; }

git rev-parse --short HEAD > "$gpu/commit" 2>/dev/null || true
size_kb=$(du -sk "$gpu" | cut -f1)
echo "[gpu-prep] .gpu is $((size_kb / 1024)) MiB: jdk $(du -sh "$gpu/jdk" | cut -f1), lib $(du -sh "$gpu/lib" | cut -f1) ($(ls "$gpu/lib" | wc -l) jars), test-lib $(du -sh "$gpu/test-lib" | cut -f1), test-classes $(du -sh "$gpu/test-classes" | cut -f1)"
# The device call carries at most 64 MiB with the working tree: .gpu travels packed (xz: the runtime's libjvm.so and
# modules shrink to about a third), as .gpu-pack/gpu.tar.xz, which scripts/gpu-suite.sh unpacks there.
pack="$root/.gpu-pack"
rm -rf "$pack"
mkdir -p "$pack"
tar -C "$root" -cf - .gpu | xz -T0 -6 > "$pack/gpu.tar.xz"
pack_kb=$(du -sk "$pack" | cut -f1)
tree_kb=$(git ls-files -z | xargs -0 du -ck 2>/dev/null | tail -n1 | cut -f1)
echo "[gpu-prep] packed: .gpu-pack/gpu.tar.xz $((pack_kb / 1024)) MiB; tracked files ~$((tree_kb / 1024)) MiB; carry .gpu-pack"
if [ $((pack_kb + tree_kb)) -gt $((62 * 1024)) ]; then
  echo "[gpu-prep] the pack and the working tree exceed 62 MiB: the GPU machine takes 64 MiB in all" >&2
  exit 1
fi
