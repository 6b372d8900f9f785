//! A best-effort reading of a shell command line for the files it writes (docs/AGENTS.md,
//! "What the shell guard sees").
//!
//! Agents change files through their shell tools as often as through their edit tools, so
//! `guard` reads the command an agent is about to run and judges every write it can see: the
//! targets of output redirections (`>`, `>>`, `>|`, `&>`, `2>`…), of `tee`, of `cp`, `mv`,
//! `install`, `ln` (and the sources `mv` removes), the files `sed -i`/`perl -i` edit in place, and
//! what `rm`, `rmdir`, `touch`, `mkdir`, `truncate`, `chmod`, `chown`, `dd of=` change, in every
//! command of a list or pipeline (`;`, `&&`, `||`, `|`, `&`, newlines, `( … )`), through the
//! wrappers `sudo`, `env`, `command`, `nohup`, `time`, `exec`, `xargs`, after variable
//! assignments, inside `sh -c '…'` / `bash -c '…'`, and after a `cd <folder>` (relative targets
//! then start there). A Codex patch (`*** Add File:` … headers) in a heredoc or an argument names
//! its files too.
//!
//! What it cannot see, by design (a reading, not a shell): a target spelled with an expansion
//! (`$VAR`, `$(…)`, backticks, globs), writes made by a program or a script it runs (`python x.py`,
//! `make`), an alias or function, and an `eval`. Such writes pass; the agent's own sandbox and
//! permission prompts are the line of defence there.
//!
//! Pure: no I/O.

/// What a command line writes, as far as it can be read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Writes {
    /// Each written path as spelled, with the folder a relative one is taken from (`None`: the
    /// command's own working folder; `Some(dir)`: after a `cd dir`, itself maybe relative).
    pub(crate) paths: Vec<(String, Option<String>)>,
}

/// Why a command line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// A quote opened and never closed.
    UnclosedQuote(char),
    /// A heredoc whose terminator never comes.
    UnclosedHeredoc(String),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::UnclosedQuote(q) => write!(f, "a {q} quote is never closed"),
            Unreadable::UnclosedHeredoc(word) => {
                write!(f, "the heredoc ending with {word} is never closed")
            }
        }
    }
}

/// One piece of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A word after quote removal; `literal` is false when it holds an expansion (`$`, a
    /// backtick, an unquoted glob character), whose value is unknown.
    Word { text: String, literal: bool },
    /// A control operator: `;`, `&&`, `||`, `|`, `&`, a newline.
    Control,
    /// `(`: a subshell starts; a `cd` inside it ends with it.
    Open,
    /// `)`.
    Close,
    /// An output redirection (`>`, `>>`, `>|`, `&>`, `&>>`, `N>`, `N>>`); the target follows.
    RedirectOut,
    /// `>&N`, `N>&M`, `<`, `<&`, `<>`: no file written, but a word may follow (skipped).
    RedirectOther,
    /// A heredoc's body (`<<WORD` … `WORD`).
    Heredoc(String),
}

/// The files `command` writes, as far as it can be read.
///
/// # Errors
/// When the command line itself is malformed (an unclosed quote or heredoc): a shell would not
/// run it as written either.
pub(crate) fn writes(command: &str) -> Result<Writes, Unreadable> {
    let mut out = Writes::default();
    read_into(command, None, &mut out, 0)?;
    Ok(out)
}

/// How deep `sh -c '…'` may nest before the rest is not read.
const MAX_DEPTH: usize = 8;

fn read_into(
    command: &str,
    start_dir: Option<String>,
    out: &mut Writes,
    depth: usize,
) -> Result<(), Unreadable> {
    let tokens = tokenize(command)?;
    let mut dir = start_dir;
    let mut outer: Vec<Option<String>> = Vec::new();
    let mut simple: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    while i <= tokens.len() {
        match tokens.get(i) {
            None | Some(Token::Control) => {
                command_writes(&simple, &mut dir, out, depth)?;
                simple.clear();
            }
            Some(Token::Open) => {
                command_writes(&simple, &mut dir, out, depth)?;
                simple.clear();
                outer.push(dir.clone());
            }
            Some(Token::Close) => {
                command_writes(&simple, &mut dir, out, depth)?;
                simple.clear();
                if let Some(before) = outer.pop() {
                    dir = before;
                }
            }
            Some(Token::Word { text, literal }) => simple.push((text.clone(), *literal)),
            Some(Token::RedirectOut) => {
                if let Some(Token::Word { text, literal }) = tokens.get(i + 1) {
                    if *literal && !is_device(text) {
                        out.paths.push((text.clone(), dir.clone()));
                    }
                    i += 1;
                }
            }
            Some(Token::RedirectOther) => {
                if matches!(tokens.get(i + 1), Some(Token::Word { .. })) {
                    i += 1;
                }
            }
            Some(Token::Heredoc(body)) => patch_writes(body, dir.as_ref(), out),
        }
        i += 1;
    }
    Ok(())
}

/// `/dev/null`, `/dev/stderr` and the like: written, but no file of anyone's.
fn is_device(path: &str) -> bool {
    path.starts_with("/dev/")
}

/// The writes of one simple command (its words, redirections already taken).
fn command_writes(
    words: &[(String, bool)],
    dir: &mut Option<String>,
    out: &mut Writes,
    depth: usize,
) -> Result<(), Unreadable> {
    for (word, _) in words {
        if word.contains("*** Begin Patch") || word.contains("*** Add File: ") {
            patch_writes(word, dir.as_ref(), out);
        }
    }
    let rest = without_wrappers(words);
    let Some(((name, _), args)) = rest.split_first() else {
        return Ok(());
    };
    named_writes(
        name.rsplit('/').next().unwrap_or(name),
        args,
        dir,
        out,
        depth,
    )
}

/// `words` without the assignments and wrappers (`sudo -u x`, `env -i`, `xargs -0`) before the
/// command name.
fn without_wrappers(words: &[(String, bool)]) -> &[(String, bool)] {
    let mut rest = words;
    loop {
        match rest.first() {
            Some((word, _)) if is_assignment(word) => rest = &rest[1..],
            Some((word, _))
                if matches!(
                    word.as_str(),
                    "sudo" | "env" | "command" | "nohup" | "time" | "exec" | "xargs" | "nice"
                ) =>
            {
                rest = &rest[1..];
                // The wrapper's own options (`sudo -u x`, `env -i`, `xargs -0`): skipped, with
                // the value of the few that take one.
                while let Some((option, _)) = rest.first() {
                    if !option.starts_with('-') || option == "-" {
                        break;
                    }
                    let takes_value = matches!(option.as_str(), "-u" | "-g" | "-n" | "-I" | "-C");
                    rest = &rest[if takes_value { 2.min(rest.len()) } else { 1 }..];
                }
            }
            _ => break,
        }
    }
    rest
}

/// The writes of the command `name` run with `args`.
fn named_writes(
    name: &str,
    args: &[(String, bool)],
    dir: &mut Option<String>,
    out: &mut Writes,
    depth: usize,
) -> Result<(), Unreadable> {
    let push = |out: &mut Writes, (path, literal): &(String, bool)| {
        if *literal && !is_device(path) {
            out.paths.push((path.clone(), dir.clone()));
        }
    };
    match name {
        "cd" | "pushd" => {
            if let Some((target, true)) = operands(args).first() {
                *dir = Some(match dir.take() {
                    Some(base) if !target.starts_with('/') => format!("{base}/{target}"),
                    _ => target.clone(),
                });
            }
        }
        "tee" | "rm" | "rmdir" | "touch" | "mkdir" | "truncate" | "shred" | "unlink" => {
            for operand in operands(args) {
                push(out, &operand);
            }
        }
        "chmod" | "chown" | "chgrp" => {
            for operand in operands(args).iter().skip(1) {
                push(out, operand);
            }
        }
        "cp" | "mv" | "install" | "ln" | "rsync" => {
            // `-t <dir>` names the destination first; else the last operand is it.
            if let Some(at) = args.iter().position(|(a, _)| a == "-t") {
                if let Some(target) = args.get(at + 1) {
                    push(out, target);
                }
            } else if let Some(target) = args
                .iter()
                .find_map(|(a, l)| a.strip_prefix("--target-directory=").map(|t| (t, *l)))
            {
                push(out, &(target.0.to_owned(), target.1));
            } else {
                let operands = operands(args);
                if let Some(last) = operands.last()
                    && operands.len() >= 2
                {
                    push(out, last);
                }
            }
            if name == "mv" {
                let operands = operands(args);
                for source in &operands[..operands.len().saturating_sub(1)] {
                    push(out, source);
                }
            }
        }
        "sed" | "perl" | "gsed" => {
            for operand in &in_place_files(args) {
                push(out, operand);
            }
        }
        "dd" => {
            for (arg, literal) in args {
                if let Some(file) = arg.strip_prefix("of=") {
                    push(out, &(file.to_owned(), *literal));
                }
            }
        }
        "sh" | "bash" | "zsh" | "dash" | "ksh" if depth < MAX_DEPTH => {
            if let Some(at) = args
                .iter()
                .position(|(a, _)| a == "-c" || a == "-lc" || a == "-ec")
                && let Some((script, _)) = args.get(at + 1)
            {
                read_into(script, dir.clone(), out, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The files `sed -i` / `perl -i` edit in place (none without `-i`): the operands after the
/// script, which is the first operand unless `-e`/`-f` give it.
fn in_place_files(args: &[(String, bool)]) -> Vec<(String, bool)> {
    let is_in_place = args.iter().any(|(a, _)| {
        a.starts_with("-i")
            || a == "--in-place"
            || a.starts_with("--in-place=")
            || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains('i'))
    });
    if !is_in_place {
        return Vec::new();
    }
    let is_script_option = |a: &str| matches!(a, "-e" | "-f" | "--expression" | "--file");
    let values: Vec<&String> = args
        .windows(2)
        .filter(|w| is_script_option(&w[0].0))
        .map(|w| &w[1].0)
        .collect();
    let mut files = operands(args);
    if values.is_empty() {
        if !files.is_empty() {
            files.remove(0);
        }
    } else {
        files.retain(|(a, _)| !values.contains(&a));
    }
    files
}

/// The arguments that are not options (`-x`, `--long`), all of them after `--`.
fn operands(args: &[(String, bool)]) -> Vec<(String, bool)> {
    let mut after_dashes = false;
    args.iter()
        .filter(|(a, _)| {
            if after_dashes {
                return true;
            }
            if a == "--" {
                after_dashes = true;
                return false;
            }
            !(a.starts_with('-') && a.len() > 1)
        })
        .cloned()
        .collect()
}

/// The files a Codex patch text names (`*** Add File:`, `*** Update File:`, `*** Delete File:`,
/// `*** Move to:`), blanks before a header included.
pub(crate) fn patch_paths(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch
        .lines()
        .filter_map(|line| {
            HEADERS
                .iter()
                .find_map(|h| line.trim_start().strip_prefix(h))
                .map(|p| p.trim().to_owned())
        })
        .filter(|p| !p.is_empty())
        .collect()
}

fn patch_writes(text: &str, dir: Option<&String>, out: &mut Writes) {
    for path in patch_paths(text) {
        out.paths.push((path, dir.cloned()));
    }
}

/// `NAME=value`, a shell variable assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Cuts a command line into words, operators, redirections and heredoc bodies, as a POSIX
/// shell would before expanding anything.
fn tokenize(command: &str) -> Result<Vec<Token>, Unreadable> {
    let chars: Vec<char> = command.chars().collect();
    let mut tokens = Vec::new();
    let mut pending_heredocs: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\n' => {
                tokens.push(Token::Control);
                i += 1;
                // Heredoc bodies start on the line after their operator.
                for (word, strip_tabs) in pending_heredocs.drain(..) {
                    let mut body = String::new();
                    let mut closed = false;
                    while i < chars.len() {
                        let end = chars[i..]
                            .iter()
                            .position(|&c| c == '\n')
                            .map_or(chars.len(), |p| i + p);
                        let line: String = chars[i..end].iter().collect();
                        i = end + 1;
                        let compared = if strip_tabs {
                            line.trim_start_matches('\t')
                        } else {
                            line.as_str()
                        };
                        if compared == word {
                            closed = true;
                            break;
                        }
                        body.push_str(&line);
                        body.push('\n');
                    }
                    if !closed {
                        return Err(Unreadable::UnclosedHeredoc(word));
                    }
                    tokens.push(Token::Heredoc(body));
                }
            }
            '(' | ')' => {
                tokens.push(if c == '(' { Token::Open } else { Token::Close });
                i += 1;
            }
            ';' | '|' | '&' => {
                if c == '&' && chars.get(i + 1) == Some(&'>') {
                    i += if chars.get(i + 2) == Some(&'>') { 3 } else { 2 };
                    tokens.push(Token::RedirectOut);
                } else {
                    let doubled = chars.get(i + 1) == Some(&c);
                    i += if doubled { 2 } else { 1 };
                    tokens.push(Token::Control);
                }
            }
            '>' | '<' => {
                let (token, len) = redirection(&chars[i..]);
                if let Some((word, strip_tabs)) = token.1 {
                    pending_heredocs.push((word, strip_tabs));
                    i += len;
                    while matches!(chars.get(i), Some(' ' | '\t')) {
                        i += 1;
                    }
                    // The delimiter word itself, quotes removed.
                    let (delimiter, used) = word_at(&chars, i)?;
                    pending_heredocs.last_mut().expect("just pushed").0 = delimiter.0;
                    i = used;
                    continue;
                }
                tokens.push(token.0);
                i += len;
            }
            digit if digit.is_ascii_digit() && is_fd_redirection(&chars[i..]) => {
                let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                i += digits;
            }
            _ => {
                let ((text, literal), next) = word_at(&chars, i)?;
                tokens.push(Token::Word { text, literal });
                i = next;
            }
        }
    }
    if let Some((word, _)) = pending_heredocs.pop() {
        return Err(Unreadable::UnclosedHeredoc(word));
    }
    Ok(tokens)
}

/// Whether `rest` starts with a file descriptor number directly followed by `>` or `<`.
fn is_fd_redirection(rest: &[char]) -> bool {
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    matches!(rest.get(digits), Some('>' | '<'))
}

/// The redirection operator at the start of `rest` and its length; a heredoc operator comes
/// with `Some((placeholder, strip_tabs))`, its delimiter word read by the caller.
fn redirection(rest: &[char]) -> ((Token, Option<(String, bool)>), usize) {
    match rest {
        ['<', '<', '<', ..] => ((Token::RedirectOther, None), 3),
        ['<', '<', '-', ..] => ((Token::RedirectOther, Some((String::new(), true))), 3),
        ['<', '<', ..] => ((Token::RedirectOther, Some((String::new(), false))), 2),
        ['<', '&' | '>', ..] | ['>', '&', ..] => ((Token::RedirectOther, None), 2),
        ['<', ..] => ((Token::RedirectOther, None), 1),
        ['>', '>' | '|', ..] => ((Token::RedirectOut, None), 2),
        _ => ((Token::RedirectOut, None), 1),
    }
}

/// The word starting at `start`: its text after quote removal, whether it is free of
/// expansions, and where it ends.
fn word_at(chars: &[char], start: usize) -> Result<((String, bool), usize), Unreadable> {
    let mut text = String::new();
    let mut literal = true;
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '|' | '&' | '(' | ')' | '<' | '>' => break,
            '\\' => {
                if let Some(&next) = chars.get(i + 1) {
                    if next != '\n' {
                        text.push(next);
                    }
                    i += 2;
                } else {
                    i += 1;
                }
            }
            '\'' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '\'')
                    .ok_or(Unreadable::UnclosedQuote('\''))?;
                text.extend(&chars[i + 1..i + 1 + end]);
                i += end + 2;
            }
            '"' => {
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(Unreadable::UnclosedQuote('"')),
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            text.push(chars[i + 1]);
                            i += 2;
                        }
                        Some(&c) => {
                            if c == '$' || c == '`' {
                                literal = false;
                            }
                            text.push(c);
                            i += 1;
                        }
                    }
                }
            }
            '$' | '`' => {
                literal = false;
                text.push(c);
                i += 1;
                // `$(…)` and `${…}` may hold blanks: keep them in this word.
                if c == '$' && matches!(chars.get(i), Some('(' | '{')) {
                    let (open, close) = if chars[i] == '(' {
                        ('(', ')')
                    } else {
                        ('{', '}')
                    };
                    let mut level = 0usize;
                    while let Some(&d) = chars.get(i) {
                        text.push(d);
                        i += 1;
                        if d == open {
                            level += 1;
                        } else if d == close {
                            level -= 1;
                            if level == 0 {
                                break;
                            }
                        }
                    }
                }
            }
            '*' | '?' | '[' => {
                literal = false;
                text.push(c);
                i += 1;
            }
            _ => {
                text.push(c);
                i += 1;
            }
        }
    }
    Ok(((text, literal), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(command: &str, expected: &[&str]) {
        let found: Vec<String> = writes(command)
            .unwrap_or_else(|e| panic!("{command}: {e}"))
            .paths
            .into_iter()
            .map(|(path, dir)| match dir {
                Some(dir) => format!("{dir}:{path}"),
                None => path,
            })
            .collect();
        assert_eq!(found, expected, "{command}");
    }

    #[test]
    fn redirections_name_their_targets() {
        case("echo hi > out.txt", &["out.txt"]);
        case("echo hi >>log 2>err.txt", &["log", "err.txt"]);
        case(
            "make &> build.log; ls >| listing",
            &["build.log", "listing"],
        );
        case("echo x 2>&1 >/dev/null | cat < in.txt", &[]);
        case(
            "printf '%s' \"a b\" > 'secrets/my file'",
            &["secrets/my file"],
        );
        case("echo x>y", &["y"]);
        case("echo $HOME > \"$OUT\"", &[]);
        case("echo 1>&2 2>a", &["a"]);
        case(
            "cat <<'EOF' > notes.md\nhello > not/a/target\nEOF\necho done > b",
            &["notes.md", "b"],
        );
    }

    #[test]
    fn file_commands_name_what_they_change() {
        case("tee -a one two < x", &["one", "two"]);
        case("cp -r src/a src/b dest/", &["dest/"]);
        case("mv old new", &["new", "old"]);
        case("cp -t target a b", &["target"]);
        case("install -m 644 f /usr/local/f", &["/usr/local/f"]);
        case("rm -rf -- build .env", &["build", ".env"]);
        case("sed -i 's/a/b/' f1 f2", &["f1", "f2"]);
        case("sed -i.bak -e 's/a/b/' -e 's/c/d/' f", &["f"]);
        case("sed 's/a/b/' f > g", &["g"]);
        case("perl -pi -e 's/a/b/' f", &["f"]);
        case("chmod 600 key && touch a/b", &["key", "a/b"]);
        case("dd if=/dev/zero of=disk.img bs=1M", &["disk.img"]);
        case("ln -s target link", &["link"]);
        case("ls -la; git status", &[]);
    }

    #[test]
    fn wrappers_lists_subshells_and_cd_are_followed() {
        case("sudo -u root tee /etc/x", &["/etc/x"]);
        case("FOO=1 env -i rm x", &["x"]);
        case("(cd secrets && echo x > y) || rm z", &["secrets:y", "z"]);
        case("cd a; cd b; rm c; cd /abs; rm d", &["a/b:c", "/abs:d"]);
        case(
            "bash -c 'echo x > inner; sh -c \"rm deep\"'",
            &["inner", "deep"],
        );
        case("find . -name x | xargs rm", &[]);
        case("echo a && \\\n rm b", &["b"]);
    }

    #[test]
    fn patches_in_heredocs_and_arguments_name_their_files() {
        case(
            "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: secrets/x\n+1\n*** Update File: src/a.rs\n*** End Patch\nPATCH\n",
            &["secrets/x", "src/a.rs"],
        );
        case(
            "apply_patch '*** Begin Patch\n*** Delete File: .env\n*** End Patch'",
            &[".env"],
        );
        case(
            "cd sub && apply_patch <<-EOF\n\t*** Begin Patch\n\t*** Add File: f\n\tEOF",
            &["sub:f"],
        );
    }

    #[test]
    fn malformed_lines_are_said_to_be() {
        assert_eq!(
            writes("echo 'oops > x"),
            Err(Unreadable::UnclosedQuote('\''))
        );
        assert_eq!(writes("echo \"a"), Err(Unreadable::UnclosedQuote('"')));
        assert_eq!(
            writes("cat <<END > f\nno end"),
            Err(Unreadable::UnclosedHeredoc("END".into()))
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_read_without_panicking(text in "[ -~\n\t]{0,200}") {
            let _ = writes(&text);
        }

        #[test]
        fn a_quoted_target_comes_back_as_written(name in "[a-zA-Z0-9 ._/@-]{1,30}") {
            let quoted = format!("'{name}'");
            let found = writes(&format!("echo x > {quoted}")).unwrap();
            proptest::prop_assert_eq!(found.paths, vec![(name, None)]);
        }
    }
}
