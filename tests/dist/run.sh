#!/usr/bin/env bash
# The release archive, as `cargo xtask dist` builds it (with a fast profile: default `quick`),
# checked from the outside: its sums, every file it must hold and nothing else, a binary that
# runs, completions and manual pages that are the binary's own; then the crate package, which
# must hold no test, benchmark or third-party data.
#
#   tests/dist/run.sh [profile]
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:-quick}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "tests/dist: $*" >&2; exit 1; }

archive=$(cargo xtask dist --profile "$profile" --out "$out")
name=$(basename "$archive" .tar.gz)
[[ $name =~ ^bmad-mem-[0-9]+\.[0-9]+\.[0-9]+.*-[a-z0-9_]+-.+$ ]] || fail "archive named $name"
(cd "$out" && sha256sum --check --quiet "$name.tar.gz.sha256") || fail "the archive's .sha256"

tar -xzf "$archive" -C "$out"
dir="$out/$name"
[[ $(tar -tzf "$archive" | cut -d/ -f1 | sort -u) == "$name" ]] || fail "one top folder, $name"
expected=(
  bmad-mem README.md LICENSE CHANGELOG.md SHA256SUMS
  complete/bmad-mem.bash complete/_bmad-mem complete/bmad-mem.fish complete/_bmad-mem.ps1
  complete/bmad-mem.elv
  man/bmad-mem.1 man/bmad-mem-recall.1 man/bmad-mem-man.1 man/bmad-mem-merge-driver.1
  man/bmad-mem-git-setup.1 man/bmad-mem-decision-adopt.1 man/bmad-mem-decision-abrogate.1
)
for file in "${expected[@]}"; do
  [[ -s $dir/$file ]] || fail "no $file in the archive"
done
[[ -x $dir/bmad-mem ]] || fail "the binary is not executable"
(cd "$dir" && sha256sum --check --quiet SHA256SUMS) || fail "SHA256SUMS"
# Every file is in the sums, and the sums name nothing else.
listed=$(cut -c67- "$dir/SHA256SUMS" | sort)
present=$(cd "$dir" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort)
[[ $listed == "$present" ]] || fail "SHA256SUMS does not list exactly the archive's files"

# The binary runs, and what the archive documents is what it prints.
bin=$dir/bmad-mem
version=$("$bin" --version | cut -d' ' -f2)
[[ $name == "bmad-mem-$version-"* ]] || fail "$name is not named for bmad-mem $version"
for shell in bash:bmad-mem.bash zsh:_bmad-mem fish:bmad-mem.fish powershell:_bmad-mem.ps1 elvish:bmad-mem.elv; do
  cmp -s <("$bin" completions "${shell%%:*}") "$dir/complete/${shell#*:}" \
    || fail "complete/${shell#*:} is not what bmad-mem completions ${shell%%:*} prints"
done
cmp -s <("$bin" man) "$dir/man/bmad-mem.1" || fail "man/bmad-mem.1"
cmp -s <("$bin" man git setup) "$dir/man/bmad-mem-git-setup.1" || fail "man/bmad-mem-git-setup.1"
# One page per action and sub-action: each action the bash script offers has its page.
pages=$(ls "$dir/man" | wc -l)
[[ $pages -ge 33 ]] || fail "only $pages manual pages"
# The bash script completes in a real bash.
got=$(bash --norc --noprofile -c "source '$dir/complete/bmad-mem.bash'
COMP_WORDS=(bmad-mem recall --ranking '') COMP_CWORD=3
_bmad__mem bmad-mem '' --ranking; echo \"\${COMPREPLY[*]}\"")
[[ $got == *lexical* && $got == *bm25* ]] || fail "bash completion of --ranking: $got"

# The crate package: the program and its documents, no test, benchmark or third-party data.
list=$(cargo package --list --offline --locked --package bmad-mem --allow-dirty 2>/dev/null)
for file in src/main.rs src/lib.rs build.rs schemas/recall.json README.md LICENSE CHANGELOG.md; do
  grep -qx "$file" <<<"$list" || fail "the package lacks $file"
done
if grep -E '^(benches|tests|fixtures|examples|proptest-regressions|fuzz|testkit|xtask)/' <<<"$list"; then
  fail "the package holds the files above"
fi
echo "tests/dist: $name.tar.gz ($profile) holds $(tar -tzf "$archive" | grep -vc '/$') files, all checked"
