#!/usr/bin/env bash
# The one way a lesson file (a student's code, untrusted) is compiled by nvcc.
#
#   checker/tools/sealed-compile.sh MODE SRC OUT [-- extra nvcc flags]
#
#   MODE ptx    nvcc -ptx -lineinfo -arch=sm_90 (an -arch among the extra flags replaces sm_90)
#   MODE cubin  nvcc -cubin -O3 -lineinfo, the -arch=sm_XX given among the extra flags
#
# Exit status: 0 compiled (OUT written, warnings shown as SRC:LINE: ...); 1 SRC does not compile
# (the errors shown as SRC:LINE: ...); 2 SRC was refused (not a regular file, too big, an
# #include); 3 the compiler hit a limit (CPU time, memory, file size, wall clock), named in one
# sentence; 4 the grader's side is wrong (no bwrap, no nvcc, bad arguments), said with what to do.
#
# Why: nvcc used to run on the student's file directly, inside the project tree, as the grader.
# A lesson file could #include /etc/passwd or the reference solution, hang the grader with a
# constexpr loop, eat all memory with a macro explosion, write a 1 GiB __constant__ table, or be
# a symlink to the solution. Here the file is copied (never followed), compiled in a bubblewrap
# box that sees only the toolkit and /usr, as an unprivileged user with no capabilities, under
# rlimits that bind every process nvcc starts; and the preprocessor's own account of the files
# it read (the line markers of the device pass, which made the PTX) refuses any #include.
#
# The result cache (WB_SEALED_CACHE): make test compiles the same files again and again in other
# build folders, ~1.1 s each. An entry holds one sealed compile's outcome: exit 0 (the compiler's
# log and the product) or a compile error (exit 1 whose log names an error at a line of SRC),
# under the sha256 of everything that decides it: the stage and nvcc's flags, the bytes of the
# private copy that is compiled, for a cubin SRC's path as its line table names it (the PTX
# stage's entry holds the PTX as written in the box, and SRC's path is put in at replay: one
# entry for every copy of a file; a cubin of a known PTX at a new path costs ptxas alone), the toolchain (nvcc's
# resolved path and --version; size and time of nvcc, cudafe++, cicc, ptxas, gcc and of every
# header a compile may read), the limits, and this script's own sha256. A hit replays the status,
# the text (the same log through the same filter) and the product byte for byte, with no compiler
# run and no box made (about 30 processes where a call that makes the box starts 80; on a machine
# where a process costs milliseconds, that is most of a hit's time). It is safe: the step-1 refusals run
# on every call first; an entry exists only for bytes that passed the #include check under the
# same flags and toolchain, so its product holds nothing but what that checked compile read; the
# cache is written only here, by the grader, never in the box, which cannot see it (a folder the
# box would show is refused). Not stored: refusals, limits and the grader's problems (exit 2-4),
# an exit 1 that names no line of SRC (nvcc fatal, a full disk: the moment's, not the file's),
# an unsealed compile. Entries are written whole (temp file + mv), used only when their stored
# sha256 matches (else compiled again), and dropped 7 days after their last use, 2000 at most.
#
# Environment (all optional):
#   NVCC                the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   WB_SHOWN            the path SRC is named by in messages and line tables (default: SRC)
#   WB_SEALED_CACHE     a folder (e.g. build/sealed-cache) for the result cache above and the
#                       dependency list of an empty file, one per toolkit and flag set; unset or
#                       empty: every call compiles, and computes that list (+0.45 s)
#   WB_SEALED_CPU_S     CPU seconds per compiler process (60)
#   WB_SEALED_MEM_MB    address space per process in MiB (4096)
#   WB_SEALED_FSIZE_MB  largest file the compiler may write, in MiB (16)
#   WB_SEALED_WALL_S    wall-clock backstop for the whole compile (600)
#   WB_SEALED_NPROC     processes and threads inside the box (256)
#   WB_UNSEALED_OK=1    where bubblewrap is missing or not permitted: compile with the same
#                       limits but without the box (says so in one line)
#   WB_SEALED_DEBUG_CMD for the test only: run this shell command in the box instead of nvcc
#   WB_SEALED_TRACE     for the test only: a file to which each call that reaches the result
#                       cache adds "hit" or "compiled" (what happened, not how long it took)
set -u
caller_umask=$(umask)
umask 077 # our temporary files are ours; OUT gets the caller's umask

MAX_SRC=$((1024 * 1024))     # a lesson file is a few KB; 1 MiB is far beyond any honest one
SHOWN_MAX=65536              # compiler output shown, at most
BOX_UID=65534                # nobody: who the compiler is, inside the box and (when we are root) outside
CPU_S=${WB_SEALED_CPU_S:-60}
# Measured: every lesson solution compiles (ptx and cubin, nvcc 13.0) with RLIMIT_AS down to
# ~160 MiB; the peak resident size is ~100 MB. 4 GiB is a 25x margin, and still far below
# what an exponential macro or template takes.
MEM_MB=${WB_SEALED_MEM_MB:-4096}
FSIZE_MB=${WB_SEALED_FSIZE_MB:-16}   # a lesson's ptx is ~10 KB and its cubin ~70 KB
WALL_S=${WB_SEALED_WALL_S:-600}
NPROC=${WB_SEALED_NPROC:-256}        # threads count too; nvcc needs 5 at once

say() { printf '%s\n' "$*"; }
usage() {
  say "usage: checker/tools/sealed-compile.sh ptx|cubin SRC OUT [-- extra nvcc flags]" >&2
  exit 4
}
for v in CPU_S MEM_MB FSIZE_MB WALL_S NPROC; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { say "sealed-compile: $v must be a positive whole number, not '${!v}'" >&2; exit 4; }
done

[ $# -ge 3 ] || usage
mode=$1 src=$2 out=$3
shift 3
if [ $# -gt 0 ]; then
  [ "$1" = -- ] || usage
  shift
fi
extra=("$@")
[ -n "$src" ] && [ -n "$out" ] || usage
# SRC as the messages and the line tables name it: WB_SHOWN where SRC is the intake's copy of a
# student's file (checker/include/intake.h). Control characters (a newline in a file name) would
# forge lines.
as=${WB_SHOWN:-$src}
shown=${as//[$'\001'-$'\037'$'\177']/?}

has_arch=0
for f in "${extra[@]}"; do
  case $f in -arch* | --gpu-architecture* | -gencode* | --generate-code*) has_arch=1 ;; esac
done
case $mode in
ptx)
  flags=(-lineinfo)
  [ $has_arch = 1 ] || flags+=(-arch=sm_90) # two -arch flags make nvcc warn
  ;;
cubin)
  [ $has_arch = 1 ] || { say "sealed-compile: cubin needs the GPU's architecture among the extra flags, e.g. -- -arch=sm_90" >&2; exit 4; }
  # The same flags as ptx's (-O is host code's level, and a .cu compiled with -ptx or -cubin has
  # none): the cubin's first step is then a ptx call's, whose cached PTX it reuses.
  flags=(-lineinfo)
  ;;
*) usage ;;
esac
flags+=("${extra[@]}")

T="" child=""
cleanup() {
  local status=$?
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
  [ -n "$T" ] && rm -rf -- "$T"
  # No stale product of an earlier version of SRC may outlive a failed compile.
  [ $status = 0 ] || rm -f -- "$out" "$out.tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# ---- 1. SRC: a regular file of its own, read without following a link ----------------------
refuse() { say "$shown $*"; exit 2; }
if [ -L "$src" ]; then
  refuse "is a symbolic link (to $(readlink -- "$src" | tr -d '\000-\037')): hand in the file itself"
elif [ ! -e "$src" ]; then
  refuse "does not exist: there is nothing to compile"
elif [ -d "$src" ]; then
  refuse "is a folder: hand in the lesson's .cu file"
elif [ -p "$src" ]; then
  refuse "is a named pipe (fifo), not a file: hand in the file itself"
elif [ -b "$src" ] || [ -c "$src" ]; then
  refuse "is a device, not a file: hand in the file itself"
elif [ -S "$src" ]; then
  refuse "is a socket, not a file: hand in the file itself"
elif [ ! -f "$src" ]; then
  refuse "is not a regular file: hand in the file itself"
fi
read -r id_before nlinks size < <(stat -c '%d:%i %h %s' -- "$src") || refuse "cannot be read"
# A second name for someone else's file (the solution) is the symlink attack by other means.
[ "$nlinks" = 1 ] || refuse "has $nlinks names (a hard link): hand in a file of its own (cp it)"
[ "$size" -le $MAX_SRC ] || refuse "is $size bytes, over the 1 MiB limit for a lesson file: hand in the lesson's kernel file"

# As root, the compiler runs as nobody outside the box too: then a file it could reach would be
# nobody's to read, and RLIMIT_NPROC, which the kernel never enforces on uid 0, holds.
drop=()
if [ "$EUID" = 0 ]; then
  setpriv=$(command -v setpriv) && drop=("$setpriv" --reuid="$BOX_UID" --regid="$BOX_UID" --clear-groups)
fi
# The temporary folder, which nobody must be able to reach when we drop to it: else in /tmp.
for dir in "${TMPDIR:-/tmp}" /tmp; do
  T=$(mktemp -d "$dir/wb-sealed.XXXXXX") || { T=""; say "sealed-compile: cannot make a temporary folder in $dir" >&2; exit 4; }
  chmod 711 "$T"
  { [ ${#drop[@]} = 0 ] || "${drop[@]}" test -x "$T"; } && break
  rm -rf -- "$T"
  T=""
done
[ -n "$T" ] || { T=$(mktemp -d "${TMPDIR:-/tmp}/wb-sealed.XXXXXX") && chmod 711 "$T"; } || { T=""; exit 4; }
box=$T/box
mkdir "$box" "$box/keep" # keep: nvcc's preprocessed device pass (deps_of)
copy=$box/kernel.cu
# O_NOFOLLOW: a link put in place after the checks above makes dd fail instead of reading the
# link's target; O_NONBLOCK: a fifo put there cannot hang the grader. One byte past the limit
# tells a file that grew.
dd if="$src" of="$copy" iflag=nofollow,nonblock,count_bytes bs=65536 count=$((MAX_SRC + 1)) status=none 2>/dev/null ||
  refuse "could not be read (it changed while it was being read?): compile it again"
read -r id_after _ size_after < <(stat -c '%d:%i %h %s' -- "$src" 2>/dev/null)
{ [ ! -L "$src" ] && [ -f "$src" ] && [ "${id_after:-}" = "$id_before" ]; } ||
  refuse "was replaced while it was being read: compile it again"
[ -f "$copy" ] && [ ! -L "$copy" ] || refuse "could not be copied as a regular file"
copied=$(stat -c %s -- "$copy")
[ "$copied" -le $MAX_SRC ] || refuse "grew over the 1 MiB limit for a lesson file while it was being read"
[ "$copied" = "$size_after" ] || refuse "changed while it was being read: compile it again"
chmod 444 "$copy"

# ---- 2. the tools and the box -------------------------------------------------------------
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ $NVCC == /* ]] || NVCC=$(command -v -- "$NVCC") || true
[ -x "$NVCC" ] || { say "sealed-compile: no nvcc at '$NVCC': install the CUDA toolkit or set NVCC" >&2; exit 4; }
prlimit=$(command -v prlimit) || { say "sealed-compile: prlimit is missing: install util-linux" >&2; exit 4; }
# NVCC with every link resolved, and the result cache's folder as it really lies (one process).
realpath -m -- "$NVCC" "${WB_SEALED_CACHE:-.}" > "$T/paths" 2>/dev/null || { say "sealed-compile: cannot resolve '$NVCC'" >&2; exit 4; }
{ IFS= read -r nvcc_real && IFS= read -r cache_real; } < "$T/paths"
toolkit=${nvcc_real%/*/*} # every component resolved: bin's parent is the toolkit's real path
# Where a path lies outside what the box binds from the host (/usr, /bin, /sbin, /lib*).
outside() { case $1/ in /usr/* | /bin/* | /sbin/* | /lib/* | /lib32/* | /lib64/* | /libx32/*) return 1 ;; esac; }

# The box (bubblewrap's namespaces, the limits) and whether it can start here: made only when
# nvcc runs (a result-cache hit needs none).
make_box() {
  [ ${#drop[@]} -gt 0 ] && chown -R $BOX_UID:$BOX_UID "$box" && chown root "$copy"

  bwrap=$(command -v bwrap || true)
  box_args=()
  if [ -n "$bwrap" ]; then
    help=$("$bwrap" --help 2>&1)
    # --unshare-all: no network, and its own pid, ipc, uts and cgroup namespaces. The user
    # namespace maps the compiler to nobody with no capabilities even when we are root.
    box_args=(--unshare-all --unshare-user --uid "$BOX_UID" --gid "$BOX_UID" --cap-drop ALL
      --die-with-parent --new-session)
    [[ $help == *--clearenv* ]] && box_args+=(--clearenv)            # env -i below for older ones
    [[ $help == *--disable-userns* ]] && box_args+=(--disable-userns) # no nested namespaces
    # What nvcc needs, found with strace and by removing binds until it failed: the toolkit,
    # gcc (nvcc preprocesses with it) and the shared libraries of both, all under /usr. No /etc
    # (but for links on the way to the toolkit, below): without /etc/ld.so.cache the loader
    # searches its default folders, and that suffices.
    # Neither /proc nor /dev is needed either; they are bwrap's own private ones (this box's
    # processes only; null, zero, random, tty), kept so that nvcc can find itself through
    # /proc/self/exe on other installations.
    box_args+=(--ro-bind /usr /usr)
    for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
      if [ -L $d ]; then
        box_args+=(--symlink "$(readlink "$d")" "$d")
      elif [ -d $d ]; then
        box_args+=(--ro-bind "$d" "$d")
      fi
    done
    # The toolkit, where it is not under /usr; and every link on the way from NVCC's path to
    # it that lies outside what is bound (NVIDIA's images: /usr/local/cuda ->
    # /etc/alternatives/cuda -> /usr/local/cuda-13.0), made again in the box: nvcc then runs,
    # and names its headers, by the same path as outside. Nothing of the host's /etc is shown.
    outside "$toolkit" && box_args+=(--ro-bind "$toolkit" "$toolkit")
    links=() p=$NVCC
    for _ in $(seq 40); do # resolve one link at a time, the first one on the path
      IFS=/ read -ra parts <<< "${p#/}"
      at="" link=""
      for ((j = 0; j < ${#parts[@]}; j++)); do
        at+=/${parts[j]}
        [ -L "$at" ] && link=$at && break
      done
      [ -n "$link" ] || break
      target=$(readlink -- "$link")
      outside "$link" && links+=(--symlink "$target" "$link")
      [[ $target == /* ]] || target=$(dirname "$link")/$target
      rest=$(IFS=/ && echo "${parts[*]:j+1}")
      p=$target${rest:+/$rest}
    done
    box_args+=(--proc /proc --dev /dev)
    # Temporary files live in memory: bounded as a whole, and each one by RLIMIT_FSIZE.
    [[ $help == *--size* ]] && box_args+=(--size $((16 * FSIZE_MB * 1024 * 1024)))
    box_args+=(--tmpfs /tmp "${links[@]}" --setenv PATH "$toolkit/bin:/usr/local/bin:/usr/bin:/bin" --setenv HOME /tmp)
  fi
  box_path=/box
  limits=("$prlimit" "--cpu=$CPU_S:$((CPU_S + 5))" --as=$((MEM_MB * 1024 * 1024)) --fsize=$((FSIZE_MB * 1024 * 1024)) --core=0)
  # The soft CPU limit sends SIGXCPU (which tells the breach apart); the hard one, 5 s later,
  # SIGKILLs a process that catches it.

  # run_box DIR CMD...: CMD in the box with DIR as its only writable folder (/box there), its
  # output in $T/log and its status in $rc. With drop, the box's processes are nobody's.
  sealed=1
  run_box() {
    local dir=$1
    shift
    local cmd
    if [ $sealed = 1 ]; then
      # RLIMIT_NPROC is set inside the new user namespace, where it counts this box's
      # processes only; set outside, it would count all of the user's processes.
      cmd=("${pre[@]}" env -i "$bwrap" "${box_args[@]}" --bind "$dir" /box --chdir /box --
        "${limits[@]}" "--nproc=$NPROC" -- "$@")
    else
      cmd=("${pre[@]}" env -i PATH="$toolkit/bin:/usr/local/bin:/usr/bin:/bin" HOME="$dir" "${limits[@]}" -- "$@")
    fi
    # timeout runs in its own process group: our trap forwards a signal to it, and it to the box.
    # Killing bwrap kills the box's pid 1 (--die-with-parent) and so everything in the box.
    local t0=$SECONDS
    (cd "$dir" && exec timeout -k 5 "$wall_left" "${cmd[@]}") < /dev/null > "$T/log" 2>&1 &
    child=$!
    wait $child
    rc=$?
    child=""
    # timeout says 124, or 137 where it had to SIGKILL: the clock decides.
    [ $((SECONDS - t0)) -ge "$wall_left" ] && [ $rc -ge 124 ] && rc=124
  }

  # Whether the box can start, as nobody when we are root, else as ourselves (no capabilities,
  # nobody inside, but uid 0 outside: unprivileged user namespaces are off for nobody here).
  wall_left=$WALL_S
  start=$SECONDS
  if [ -z "$bwrap" ]; then
    why="bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap, dnf install bubblewrap)"
    sealed=0
  else
    pre=("${drop[@]}")
    run_box "$box" /bin/true
    if [ $rc != 0 ] && [ ${#drop[@]} -gt 0 ]; then
      pre=()
      chown -R 0:0 "$box" # nobody inside is uid 0 outside now, without the power to override
      run_box "$box" /bin/true
    fi
    if [ $rc != 0 ]; then
      why="bubblewrap cannot make its box here ($(head -c 300 "$T/log" | tr '\n' ' ' | tr -d '\000-\037')): allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in a container, one started with user namespaces allowed)"
      sealed=0
    fi
  fi
  if [ $sealed = 0 ]; then
    if [ "${WB_UNSEALED_OK:-}" != 1 ]; then
      say "sealed-compile: $why; or set WB_UNSEALED_OK=1 to compile without the box." >&2
      exit 4
    fi
    say "sealed-compile: $shown is compiled with limits but NOT sealed (WB_UNSEALED_OK=1): $why."
    pre=("${drop[@]}") box_path=$box
    [ ${#drop[@]} -gt 0 ] && chown -R $BOX_UID:$BOX_UID "$box" && chown root "$copy" # (the probe's fallback took it back)
  fi
}
sealed=1 box_path=/box # (until make_box finds otherwise)


# ---- 3. compile, and name what went wrong --------------------------------------------------
in_src=$box_path/kernel.cu
# SRC's path as nvcc would have recorded it compiling SRC where it lies (cwd + SRC, not
# normalized): the line tables then name the student's file, and the product is the unsealed
# one but for two things: the mangled names of internal functions in .debug_str, which hash the
# file's path, and, in a cubin's line table, the source's time and size (0: ptxas cannot see
# SRC). Only a path that is safe inside a PTX string is put there.
case $as in /*) abs_src=$as ;; *) abs_src=$(pwd -P)/$as ;; esac
[[ $abs_src =~ ^[][A-Za-z0-9\ \'_./+,:=@%~#\(\)-]+$ ]] || abs_src=$in_src

# Lines of the compiler's output as the student's file:line, without nvcc's boilerplate and
# control characters, at most SHOWN_MAX bytes.
show_log() {
  [ -s "$T/log" ] || return 0
  LC_ALL=C tr -d '\000-\010\013-\037\177' < "$T/log" |
    WB_FROM=$in_src WB_TO=$shown awk 'BEGIN { from = ENVIRON["WB_FROM"]; to = ENVIRON["WB_TO"] }
      /^Remark: The warnings can be suppressed/ || / detected in the compilation of / { next }
      /^[ \t]*$/ { blank = 1; next } # one blank line between messages, none around them
      {
        if (blank && shown) print ""
        blank = 0; shown = 1
        out = ""; s = $0
        while ((i = index(s, from)) > 0) { out = out substr(s, 1, i - 1) to; s = substr(s, i + length(from)) }
        s = out s
        if (index(s, to "(") == 1 && match(substr(s, length(to) + 1), /^\([0-9]+\): /))
          s = to ":" substr(s, length(to) + 2, RLENGTH - 4) ": " substr(s, length(to) + RLENGTH + 1)
        print s
      }' > "$T/shown"
  local n need
  n=$(stat -c %s "$T/shown")
  head -c $SHOWN_MAX "$T/shown"
  [ "$n" -le $SHOWN_MAX ] || printf '\n(%d more bytes of compiler output not shown)\n' $((n - SHOWN_MAX))
  # ptxas's words for a build older than an instruction needs (lesson 10's mma.sync on a 7.5 GPU).
  need=$(LC_ALL=C sed -n 's/.*requires \.target sm_\([0-9][0-9]*\) or higher.*/\1/p' "$T/log" | sort -n | tail -n 1)
  [ -n "$need" ] && printf '\n%s needs a GPU of compute capability %s.%s or newer for the instructions above, and this build is for %s (the GPU found here, or CUDA_ARCH): on an older GPU, make check EMU=1 grades it in the CPU emulator.\n' \
    "$shown" "${need%?}" "${need: -1}" "$(printf '%s\n' "${flags[@]}" | sed -n 's/^-arch=//p' | tail -n 1)"
  return 0
}

# The line of SRC with an #include naming FILE (or any #include). Lines end at \n, \r\n or a
# lone \r, as they do for the compiler. This only finds a line number: nvcc decides.
include_line() {
  WB_WANT=$(basename -- "$1") LC_ALL=C awk 'BEGIN { RS = "\r\n|\r|\n"; want = ENVIRON["WB_WANT"] }
    /^[ \t]*(#|%:|\?\?=)[ \t]*(include|import)/ { if (!any) any = NR; if (!hit && index($0, want)) hit = NR }
    END { print (hit ? hit : any ? any : "") }' "$copy"
}
refuse_include() { # refuse_include FILE [LINE]
  local line=${2:-$(include_line "$1")}
  say "$shown${line:+:$line}: includes $1: lesson files may not include anything (the harness provides every CUDA name)"
  exit 2
}

# A breach of a limit, from the exit status (which nothing in a source file can choose) or from
# the allocators' own words on lines that begin with a tool's name, not with the file's.
limit_breach() { # limit_breach WHAT
  local what=$1 hint="" line
  [ $rc = 0 ] && return 0
  if [ $rc = 124 ]; then
    say "$shown: the compiler ran for $WALL_S s of wall-clock time and was stopped with everything it started: code that keeps the compiler busy for very long (a huge constexpr or template computation) on a badly overloaded machine causes this."
  elif [ $rc = 152 ]; then
    say "$shown: the compiler used up its $CPU_S s of CPU time $what and was stopped: a constexpr computation, template recursion or loop unrolling that never ends (or is enormous) causes this."
  elif [ $rc = 137 ]; then
    say "$shown: the compiler was killed $what, by the hard stop $((CPU_S + 5)) s into its CPU time or by the machine's out-of-memory killer: a computation that never ends or an enormous expansion causes this."
  elif [ $rc = 153 ]; then
    say "$shown: the compiler tried to write a file over the $FSIZE_MB MiB limit $what and was stopped: a huge initialised __device__ or __constant__ table, or macros that expand to an enormous amount of code, cause this."
  elif grep -Eq "^(cc1(plus)?: (out of memory|virtual memory exhausted)|terminate called after throwing an instance of 'std::bad_alloc'|ptxas.*([Mm]emory allocation fail|[Oo]ut of memory)|nvcc (error|fatal) *:.*([Oo]ut of memory|[Mm]emory allocation)|.*error while loading shared libraries: .*([Cc]annot allocate memory|failed to map))|^[^ ]*(\([0-9]+\))?: catastrophic error: out of memory\$" "$T/log" ||
    [ $rc = 139 ] || [ $rc = 135 ]; then
    # An include of an endless file (/dev/zero) lands here too: say where it is.
    line=$(include_line "")
    [ -n "$line" ] && hint=" Line $line has an #include, which lesson files may not have."
    say "$shown: the compiler ran out of its $MEM_MB MiB of memory $what and was stopped: a macro or template that expands exponentially, or a huge constexpr object, causes this.$hint"
  elif grep -Eq '^(gcc|g\+\+|cc1plus|cicc|ptxas|nvcc|(/bin/)?sh)[^ ]*:.*(Cannot fork|Resource temporarily unavailable)' "$T/log"; then
    # Exit 3, not 4: text the compiler prints can be forged by a static_assert message,
    # and nothing in a lesson file may pass itself off as a fault of the grader.
    say "$shown: the compiler could not start a process $what (its box allows $NPROC processes and threads): no honest lesson file causes this; if it happens again, raise WB_SEALED_NPROC."
  elif [ $rc -gt 128 ] && [ $rc -le 192 ]; then
    say "$shown: the compiler was killed by signal $((rc - 128)) $what: pathological code (very deep nesting or recursion) that crashes it causes this."
  else
    return 0
  fi
  exit 3
}

# What the box wrote is read only as a plain file: a link left there would make us read (we may
# be root) whatever it points to. The box's processes are all gone by then (its pid namespace
# died with its pid 1), so nothing can change it after the check.
plain() { [ -f "$1" ] && [ ! -L "$1" ]; }

# The files the preprocessor read for DIR/kernel.cu, one a line (as its line markers spell
# them, gcc's escapes kept), without the file itself: from the device pass that nvcc keeps
# (-keep), the one cicc made the PTX of. The preprocessor marks every file it enters, even an
# empty one, by the name it opened; nvcc's own -MD reads the same markers, of an extra host
# pass (0.15 s a compile) this product does not need. A marker a file writes itself only adds
# a name (and so refuses that file): it cannot take back the mark of a file that was read.
# Names are shown as the markers escape them (gcc writes a control character as \ooo).
deps_of() {
  plain "$1" || return 1
  LC_ALL=C sed -n 's/^# [0-9][0-9]* "\(.*\)"\( [1-4]\)*$/\1/p' "$1" |
    LC_ALL=C awk 'NR == 1 { self = $0 } $0 != self && !seen[$0]++'
}
# The same compile of an empty file, in a box of its own: what every file reads (the CUDA
# headers nvcc includes itself, and theirs). Cached per nvcc, host compiler and flags.
baseline() {
  local file
  key_parts || { say "sealed-compile: cannot read the toolkit's files or this compile's copy" >&2; exit 4; }
  file=$basefile
  if [ -n "$file" ] && [ -s "$file" ] && [ "${1:-}" != fresh ]; then
    cat "$file"
    from_cache=1
    return
  fi
  # Made once per call (where the cache cannot keep it, the result cache's key needs it too).
  if [ -s "$T/baseline" ] && [ "${1:-}" != fresh ]; then
    cat "$T/baseline"
    from_cache=0
    return
  fi
  from_cache=0
  local base=$T/base
  rm -rf "$base" && mkdir -p "$base/keep" && : > "$base/kernel.cu"
  [ ${#pre[@]} -gt 0 ] && chown -R $BOX_UID:$BOX_UID "$base"
  [ $sealed = 1 ] || box_path=$base
  run_box "$base" "$NVCC" -ptx "${flags[@]}" -keep -keep-dir "$box_path/keep" -o "$box_path/kernel.ptx" "$box_path/kernel.cu"
  [ $sealed = 1 ] || box_path=$box
  deps_of "$base/keep/kernel.cpp1.ii" > "$T/baseline" && [ $rc = 0 ] && [ -s "$T/baseline" ] || {
    say "sealed-compile: nvcc cannot compile an empty file in the box:" >&2
    head -c 2000 "$T/log" >&2
    exit 4
  }
  # Shared like any build output (the caller's umask); a cache we may not write is no error.
  [ -n "$file" ] && (umask "$caller_umask" && mkdir -p "$WB_SEALED_CACHE" && cat "$T/baseline" > "$file.$$" &&
    mv -f "$file.$$" "$file") 2>/dev/null
  cat "$T/baseline"
}
# Files the student's compile read that an empty file's does not: each was included.
check_includes() {
  local new
  deps_of "$box/keep/kernel.cpp1.ii" > "$T/deps" || return 0 # no list: the compile failed before it
  baseline > "$T/base.list"
  new=$(LC_ALL=C awk 'NR == FNR { base[$0] = 1; next } !($0 in base)' "$T/base.list" "$T/deps")
  # A cached list from another toolkit must not refuse a file: make sure with a fresh one.
  if [ -n "$new" ] && [ "$from_cache" = 1 ]; then
    baseline fresh > "$T/base.list"
    new=$(LC_ALL=C awk 'NR == FNR { base[$0] = 1; next } !($0 in base)' "$T/base.list" "$T/deps")
  fi
  [ -z "$new" ] && return
  local first
  first=$(head -n 1 <<< "$new")
  refuse_include "$(realpath -m -s -- "$first" 2>/dev/null || echo "$first")"
}

# ---- the result cache (the header says what it holds and why a hit is safe) ----------------
CACHE_DAYS=7 CACHE_MAX=2000
CACHE_ENTRY_MAX=$((1024 * 1024)) # an honest entry is < 100 KB: 2000 of them stay under 2 GiB
# An entry, result-KEY: a line "wb-sealed-result-1 STATUS LOGLEN PRODUCTLEN SHA256", then the
# compiler's log (what show_log reads) and the product; SHA256 is that of all after the line.
# The log, not show_log's text, is kept: SRC as this call spells it is put in at replay.
cache=""
# key_parts: what every key is made of, in two processes: $stamp (every tool a compile runs, by
# size and time), $basefile (where the empty file's list is kept: one per nvcc as spelt, its
# tools, the flags and whether the box is used), $idfile (nvcc --version's, one per stamp: the
# stamp is in the key too, and a damaged file cannot make two toolchains one), and the sha256
# of the private copy ($src_sum) and of this script ($self: new rules make every entry a miss).
key_parts() {
  [ "${parts_for:-}" = "$sealed" ] && return 0
  local d gcc="" line sums
  for d in "$toolkit/bin" /usr/local/bin /usr/bin /bin; do # gcc as the box's PATH finds it
    [ -f "$d/gcc" ] && [ -x "$d/gcc" ] && gcc=$d/gcc && break
  done
  stat -L -c '%n %s %Y' -- "$nvcc_real" "$toolkit/bin/cudafe++" "$toolkit/nvvm/bin/cicc" "$toolkit/bin/ptxas" \
    "$gcc" > "$T/stamp" 2>/dev/null
  stamp=""
  while IFS= read -r line; do stamp+=${stamp:+$'\n'}$line; done < "$T/stamp"
  printf '%s\n' "markers $NVCC $sealed" "$stamp" "${flags[@]}" > "$T/basekey"
  sha256sum -- "$copy" "${BASH_SOURCE[0]}" "$T/basekey" "$T/stamp" > "$T/sums" || return 1
  { read -r src_sum _ && read -r self _ && read -r sums _ && read -r line _; } < "$T/sums" || return 1
  basefile=${WB_SEALED_CACHE:+$WB_SEALED_CACHE/baseline-${sums:0:24}.deps}
  idfile=${WB_SEALED_CACHE:+$WB_SEALED_CACHE/toolchain-${line:0:32}.id}
  parts_for=$sealed
}
# cache_setup [early]: $cache, and the key's parts; false where there is no cache to use. early:
# before the box is made, from what earlier calls left (the empty file's list, nvcc's version):
# without them, no lookup now (the full setup after the box makes them).
cache_setup() {
  cache=""
  [ -n "${WB_SEALED_CACHE:-}" ] && [ $sealed = 1 ] || return 1
  # The box shows /usr, /bin, /lib* and the toolkit: a cache there would be the compiler's to read.
  if ! outside "$cache_real" || [[ $cache_real/ == "$toolkit"/* ]]; then
    say "sealed-compile: WB_SEALED_CACHE ($WB_SEALED_CACHE) lies where the compiler's box can see it: put it elsewhere (e.g. build/sealed-cache)" >&2
    exit 4
  fi
  key_parts || return 1
  # The headers a key names: those of the empty file's list as it stands (a stale cached list,
  # replaced during the compile, gives the entry the key of the fresh one, else its entry would
  # never be found again).
  if [ "${1:-}" = early ]; then
    plain "$basefile" && [ -s "$basefile" ] && plain "$idfile" && [ -s "$idfile" ] || return 1
    base_list=$basefile
  else
    baseline > "$T/base.list"
    base_list=$T/base.list
  fi
  # nvcc --version, run once per tool stamp.
  if plain "$idfile" && [ -s "$idfile" ]; then
    IFS= read -r -d '' ident < "$idfile"
  elif ident=$("$NVCC" --version 2>&1); then
    (umask "$caller_umask" && mkdir -p -- "$WB_SEALED_CACHE" && printf '%s\n' "$ident" > "$idfile.tmp.$$" && mv -f -- "$idfile.tmp.$$" "$idfile") 2>/dev/null
  else
    return 1
  fi
  ident=${ident%$'\n'}
  cache=$WB_SEALED_CACHE
}
# result_key STAGE (ptx or cubin): $rkey. NUL ends each field (no argument can hold one): one
# encoding per input. SRC as spelt is not in it (only the text names it, and that is made at
# replay). Two stages: the PTX as nvcc wrote it in the box (it names /box/kernel.cu, whatever
# SRC's path: one entry serves every copy of a file, a class's untouched stubs, the handout's),
# and a cubin, whose line table names SRC's path (an entry per path).
result_key() {
  local headers="" where="" list
  [ "$1" = cubin ] && where=$abs_src
  mapfile -t list < "$base_list"
  [ ${#list[@]} = 0 ] || LC_ALL=C stat -L -c '%n %s %Y' -- "${list[@]}" > "$T/headers" 2>/dev/null
  [ ${#list[@]} = 0 ] || IFS= read -r -d '' headers < "$T/headers"
  printf '%s\0' wb-sealed-result-3 "$1" "${#flags[@]}" "${flags[@]}" "$where" "$stamp" "${headers%$'\n'}" "$ident" \
    "$self" "$CPU_S $MEM_MB $FSIZE_MB $WALL_S $NPROC" "$src_sum" > "$T/key" &&
    sha256sum < "$T/key" > "$T/key.sum" && read -r rkey _ < "$T/key.sum" && [[ $rkey =~ ^[0-9a-f]{64}$ ]]
}

# cache_get STAGE: a verified entry: $T/log, $T/hit.product (exit 0) and hit_status; else false.
# The entry's line is read first, then its body: an entry replaced between the two reads (mv
# replaces it whole) has another body, whose sha256 is not the line's.
cache_get() {
  local line st llen plen sum got entry
  result_key "$1" || return 1
  entry=$cache/result-$rkey
  plain "$entry" && { IFS= read -r line < "$entry"; } 2>/dev/null || return 1
  read -r _ st llen plen sum <<< "$line"
  [[ $st =~ ^[01]$ && $llen =~ ^[0-9]{1,8}$ && $plen =~ ^[0-9]{1,8}$ && $sum =~ ^[0-9a-f]{64}$ ]] &&
    [ "$line" = "wb-sealed-result-1 $st $llen $plen $sum" ] || return 1
  { [ "$st" = 0 ] && [ "$plen" -gt 0 ]; } || { [ "$st" = 1 ] && [ "$plen" = 0 ]; } || return 1
  tail -c +$((${#line} + 2)) -- "$entry" > "$T/hit.body" 2>/dev/null &&
    sha256sum < "$T/hit.body" > "$T/hit.sum" && read -r got _ < "$T/hit.sum" && [ "$got" = "$sum" ] || return 1
  if [ "$llen" = 0 ]; then # most compiles say nothing: the body is the product
    : > "$T/log" && mv -f -- "$T/hit.body" "$T/hit.product" || return 1
    [ "$st" = 1 ] || [ -s "$T/hit.product" ] || return 1
  else
    head -c "$llen" "$T/hit.body" > "$T/log" || return 1
    [ "$st" = 1 ] || tail -c "$plen" "$T/hit.body" > "$T/hit.product" || return 1
  fi
  touch -c -- "$entry" 2>/dev/null # its last use, for pruning
  hit_status=$st
}
# cache_put STAGE STATUS [PRODUCT]: $T/log (and PRODUCT) as the stage's entry. Failing to is no
# error.
cache_put() {
  [ -n "$cache" ] || return 0
  local key stage=$1
  shift
  result_key "$stage" || return 0 # (the list may have been made afresh since the lookup)
  key=$rkey
  # An exit 1 is kept only where the compiler put an error on a line of SRC: that is the file's.
  [ "$1" = 0 ] || LC_ALL=C grep -Eq "^${in_src//./\\.}(\([0-9]+\)|:[0-9]+(:[0-9]+)?): ([a-z]+ )?error" "$T/log" || return 0
  local body=$T/put.body llen size sum tmp=$cache/result-$key.tmp.$$
  cat -- "$T/log" ${2:+"$2"} > "$body" || return 0
  llen=$(stat -c %s "$T/log") size=$(stat -c %s "$body")
  [ "$size" -le $CACHE_ENTRY_MAX ] || return 0
  sum=$(sha256sum < "$body")
  # Shared like any build output (the caller's umask); the temp file in the same folder makes
  # the mv one rename: a reader sees no entry or a whole one.
  (umask "$caller_umask" && mkdir -p -- "$cache" &&
    { printf 'wb-sealed-result-1 %s %s %s %s\n' "$1" "$llen" $((size - llen)) "${sum:0:64}" && cat -- "$body"; } > "$tmp" &&
    mv -f -- "$tmp" "$cache/result-$key") 2>/dev/null || rm -f -- "$tmp" 2>/dev/null
  # Bounded, at the cost of a listing per miss: unused for CACHE_DAYS, and all but the
  # CACHE_MAX last used; a temp file an interrupted call left, after an hour.
  (cd -- "$cache" && find . -maxdepth 1 -type f \( -name '*.tmp.*' -mmin +60 -o \
    -name 'result-*' ! -name '*.tmp.*' -mmin +$((CACHE_DAYS * 24 * 60)) \) -delete &&
    find . -maxdepth 1 -type f -name 'result-*' ! -name '*.tmp.*' -printf '%T@ %f\n' | sort -n |
    head -n -$CACHE_MAX | cut -d ' ' -f 2 | xargs -r rm -f --) 2>/dev/null
  return 0
}
# OUT from PRODUCT, made as the caller's umask makes files (named: a PTX of the box's, its .file
# made to name SRC, src_named); then exit 0.
deliver() {
  { [ ! -e "$out.tmp" ] && [ ! -L "$out.tmp" ]; } || rm -f -- "$out.tmp"
  umask "$caller_umask"
  if [ "${2:-}" = named ]; then src_named "$1"; else cat -- "$1"; fi > "$out.tmp" && mv -f -- "$out.tmp" "$out" ||
    { umask 077; say "sealed-compile: cannot write $out" >&2; exit 4; }
  exit 0
}
compile_error() { show_log; cache_put "$1" 1; exit 1; }
# timer_reads PTX: the first read of a special register that tells when or where a kernel runs, as
# `SRC(LINE): error: ...` (LINE: the .loc in force, or the line that inlined a header's code; a
# comment is no read), or nothing. The interpreter refuses the same names (ptx_decode.c).
timer_reads() {
  LC_ALL=C awk -v src="$in_src" '
    BEGIN { timers = "%(clock|clock_hi|clock64|globaltimer|globaltimer_lo|globaltimer_hi|smid|warpid|nwarpid|gridid)" }
    $1 == ".loc" && $2 == 1 { line = $3 }
    $1 == ".loc" && $2 != 1 && match($0, /inlined_at 1 [0-9]+/) { line = substr($0, RSTART + 13, RLENGTH - 13) }
    { s = $0; sub(/\/\/.*/, "", s) }
    match(s, timers "([^A-Za-z0-9_$]|$)") {
      name = substr(s, RSTART, RLENGTH); sub(/[^A-Za-z0-9_%]$/, "", name)
      printf "%s(%d): error: reads %s: lesson files may not read clocks or SM ids: a kernel'"'"'s result must not " \
             "depend on when or where it runs\n", src, line, name
      exit
    }' "$1"
}

# A hit never bypasses a check. The step-1 refusals (link, hard link, size, not a file) have run
# on this call. The #include check is nvcc's list of what it read, and that is decided by the
# bytes, the flags and the toolchain, all in the key: an entry's bytes passed it (a refusal
# stores nothing), so the same bytes would pass again. (A file that tests for a header with
# __has_include could compile otherwise once a new header appears under /usr; its entry is still
# a checked compile's, and the box shows nothing but the toolkit and /usr, never the grader's.)
# For the test: what this call did, where timing could only guess it.
trace() { [ -z "${WB_SEALED_TRACE:-}" ] || echo "$1" >> "$WB_SEALED_TRACE"; }
# The .file of a PTX made in the box, made to name SRC where it lies: the product a ptx compile
# gives, and what a cubin's line table is made from.
src_named() {
  LC_ALL=C awk -v from="\"$in_src\"" -v to="\"$abs_src\"" '
    /^\t\.file\t/ && (i = index($0, from)) { $0 = substr($0, 1, i - 1) to substr($0, i + length(from)) } { print }' "$1"
}
name_src() {
  src_named "$1" > "$T/kernel.ptx" && chmod 444 "$T/kernel.ptx" && mv -f "$T/kernel.ptx" "$box/kernel.ptx" || exit 4
}

# try_hits: this call's stage from the cache (replayed, and exit), or for a cubin its PTX
# (ptx_from_cache: only ptxas runs, in the box).
try_hits() {
  if [ "$mode" = cubin ] && cache_get cubin; then
    trace hit; show_log; deliver "$T/hit.product"
  fi
  cache_get ptx || return 0
  if [ "$hit_status" != 0 ] || [ "$mode" = ptx ]; then
    trace hit; show_log
    [ "$hit_status" = 0 ] || exit 1
    deliver "$T/hit.product" named
  fi
  ptx_from_cache=1 log1=$(cat "$T/log") # (make_box's probe writes $T/log)
}
# The lookup before the box is made (the box's name for the copy, which a hit's log and PTX hold,
# is /box/kernel.cu); where it could not be made yet, after.
ptx_from_cache="" looked=""
if [ -z "${WB_SEALED_DEBUG_CMD:-}" ] && cache_setup early; then
  try_hits
  looked=1
fi

make_box
if [ "$box_path" != /box ]; then # compiled unsealed: the copy's name as the compiler sees it
  [ "$abs_src" = "$in_src" ] && abs_src=$box_path/kernel.cu
  in_src=$box_path/kernel.cu
fi

if [ -n "${WB_SEALED_DEBUG_CMD:-}" ]; then # the test looks into the box through this
  run_box "$box" /bin/sh -c "$WB_SEALED_DEBUG_CMD"
  limit_breach "running WB_SEALED_DEBUG_CMD"
  cat "$T/log"
  exit $rc
fi

cache_setup || cache=""
[ -n "$cache" ] && [ -z "$looked" ] && try_hits

if [ -z "$ptx_from_cache" ]; then
trace compiled
wall_left=$((WALL_S - (SECONDS - start)))
[ $wall_left -gt 0 ] || wall_left=1
# Step 1: the .cu to PTX, and the list of files read (deps_of). For a cubin, PTX first too: nvcc
# does the same inside -cubin (the cubins are identical), and the PTX's file name can then be
# put right before ptxas writes it into the line table.
run_box "$box" "$NVCC" -ptx "${flags[@]}" -keep -keep-dir "$box_path/keep" -o "$box_path/kernel.ptx" "$in_src"
limit_breach "while compiling"
status1=$rc log1=$(cat "$T/log")
# An include of a file the box does not have (/etc/passwd, ../../solutions/...): gcc's fatal
# error names it. Anything else the compile read is in the device pass's markers.
missing=$([ $status1 = 0 ] || LC_ALL=C grep -E -m1 '^[^ ]+:[0-9]+:[0-9]+: fatal error: .*: (No such file or directory|Is a directory|Permission denied|Not a directory)$' "$T/log")
if [ -n "$missing" ]; then
  file=${missing#*: fatal error: } file=${file%: *}
  line=""
  [[ $missing == "$in_src:"* ]] && line=${missing#"$in_src:"} line=${line%%:*}
  refuse_include "$file" "$line"
fi
check_includes
printf '%s\n' "$log1" > "$T/log"
# A store to __constant__ memory: nvcc only warns and drops the store, so the kernel would run
# without it in both judges (a GPU faults on such a store where a pointer hides the space).
# Refused as an error on its line.
if [ $status1 = 0 ] && grep -q 'Cannot store to pointer that points to constant memory space' "$T/log"; then
  sed -E -i 's/^warning: (.*\([0-9]+\)): Warning: Cannot store to pointer that points to constant memory space/\1: error: this stores to __constant__ memory, which a kernel may only read: nvcc drops the store (with a warning) and the kernel would not do what its source says; write to a global buffer instead/' "$T/log"
  status1=1
fi
# A read of a clock, a timer, or the id of the SM or warp slot it runs on (clock64(), an asm of
# %globaltimer or %smid): a kernel's result would depend on when or where it runs, and a kernel
# could tell the emulator from a GPU by it. Refused in both judges from the PTX (ptxas assembles
# this very text), on the line its .loc names.
if [ $status1 = 0 ] && plain "$box/kernel.ptx"; then
  timer=$(timer_reads "$box/kernel.ptx")
  [ -z "$timer" ] || { printf '%s\n' "$timer" >> "$T/log"; status1=1; }
fi
if [ $status1 != 0 ] || ! plain "$box/kernel.ptx"; then
  # A failure that names no line of SRC ("nvcc fatal: ..."): if an empty file fails the same
  # way, the box or the toolkit is broken, and baseline says so (exit 4).
  grep -q "^${in_src//./\\.}" "$T/log" || { baseline fresh > /dev/null; printf '%s\n' "$log1" > "$T/log"; }
  compile_error ptx
fi
cp -- "$box/kernel.ptx" "$T/box.ptx" && cache_put ptx 0 "$T/box.ptx"
# ptx: `.file 1 "/box/kernel.cu"` as SRC where it lies.
name_src "$T/box.ptx"
else
  trace assembled
  name_src "$T/hit.product"
fi
product=$box/kernel.ptx
if [ "$mode" = cubin ]; then
  wall_left=$((WALL_S - (SECONDS - start)))
  [ $wall_left -gt 0 ] || wall_left=1
  run_box "$box" "$NVCC" -cubin "${flags[@]}" -o "$box_path/kernel.cubin" "$box_path/kernel.ptx"
  limit_breach "while assembling"
  log2=$(cat "$T/log")
  # The warnings of both steps, in order.
  printf '%s\n%s\n' "$log1" "$log2" | sed '/^$/d' > "$T/log"
  if [ $rc != 0 ] || ! plain "$box/kernel.cubin"; then
    compile_error cubin
  fi
  product=$box/kernel.cubin
fi
show_log
plain "$product" && [ -s "$product" ] || { say "sealed-compile: nvcc reported success but wrote no $mode" >&2; exit 4; }
[ "$mode" = cubin ] && cache_put cubin 0 "$product"
deliver "$product"
