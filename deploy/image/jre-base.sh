#!/usr/bin/env bash
# Writes a base image for the service as a tarball in the layout of `docker save`, from this Debian machine alone:
# a runtime cut by jlink from the installed JDK, and the few shared libraries it links, copied from the Debian
# packages that ship them. No container registry and no container daemon is needed. A build that reaches a
# registry uses a published JRE image instead (see docs/operators.md, "Deploy").
#
# usage: jre-base.sh OUTPUT.tar
set -euo pipefail

out="$1"
# Built once per build directory: the machine's JDK and libraries do not change between two builds.
if [ -s "$out" ] && [ "$out" -nt "$0" ]; then
  exit 0
fi
work="$(dirname "$out")/jre-base.d"
root="$work/rootfs"
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
# The modules the service and its libraries use (found with jdeps), plus TLS to providers (jdk.crypto.ec) and
# the tools an operator uses on a live JVM (jcmd through jdk.jcmd and jdk.attach).
modules=java.base,java.compiler,java.datatransfer,java.desktop,java.instrument,java.logging,java.management,\
java.naming,java.net.http,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,\
java.transaction.xa,java.xml,jdk.attach,jdk.crypto.ec,jdk.jcmd,jdk.jfr,jdk.management,jdk.naming.dns,\
jdk.net,jdk.unsupported,jdk.zipfs
# The runtime links the C library, the C++ runtime and zlib; nothing else.
packages="libc6 libgcc-s1 libstdc++6 zlib1g"
uid=10001

rm -rf "$work"
mkdir -p "$root/opt/java" "$root/usr/lib" "$root/etc" "$root/tmp" "$root/app"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=2 --output "$root/opt/java/openjdk"
# Debian's JDK links its CA store into /etc; the image carries the file itself.
rm -f "$root/opt/java/openjdk/lib/security/cacerts"
cp -L /etc/ssl/certs/java/cacerts "$root/opt/java/openjdk/lib/security/cacerts"

# Merged /usr, as in current Debian: /lib, /lib64 and /bin point into /usr.
for p in $packages; do
  dpkg -L "$p" | while read -r f; do
    case "$f" in
      /usr/share/*|/etc/*|*/gconv/*|*/bin/*|*/sbin/*|*/libexec/*|*/audit/*) continue ;;
    esac
    if [ -d "$f" ]; then
      continue
    elif [ -f "$f" ] || [ -L "$f" ]; then
      target="$root/usr${f#/usr}"
      mkdir -p "$(dirname "$target")"
      cp -a "$f" "$target"
    fi
  done
done
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
ln -s usr/bin "$root/bin"
mkdir -p "$root/usr/bin"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\napp:x:%s:%s:merge-synthesis:/app:/usr/sbin/nologin\n' $uid $uid \
  > "$root/etc/passwd"
printf 'root:x:0:\napp:x:%s:\n' $uid > "$root/etc/group"
printf 'hosts: files dns\n' > "$root/etc/nsswitch.conf"
chmod 1777 "$root/tmp"

# One layer, written the same way every time, so that its digest changes only when its content does.
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$root" -cf "$work/layer.tar" .
diff_id="sha256:$(sha256sum "$work/layer.tar" | cut -d' ' -f1)"
cat > "$work/config.json" <<JSON
{"architecture":"amd64","os":"linux",
 "config":{"Env":["PATH=/opt/java/openjdk/bin:/usr/bin:/bin","JAVA_HOME=/opt/java/openjdk","LANG=C.UTF-8"],
           "User":"$uid:$uid","WorkingDir":"/app"},
 "rootfs":{"type":"layers","diff_ids":["$diff_id"]},
 "history":[{"created_by":"deploy/image/jre-base.sh: jlink runtime and $packages from Debian"}]}
JSON
printf '[{"Config":"config.json","RepoTags":["merge-synthesis-jre-base:local"],"Layers":["layer.tar"]}]\n' \
  > "$work/manifest.json"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work" \
  -cf "$out" manifest.json config.json layer.tar
rm -rf "$work"
