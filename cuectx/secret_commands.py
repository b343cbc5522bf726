"""Where a password sits on a command line (issue 26): `mysql -u root -pS3cret`, `sshpass -p
'…' ssh …`, `docker login -p …`, `redis-cli -a …`, `ldapsearch -w …`, `zip -P …`, `smbclient -U
user%…`, `htpasswd -b file user …`, `echo '…' | sudo -S …`. Parsing only: each argument is
handed back with how sure its place is, and cuectx.secrets judges the value. Imported only
when a text names one of these programs (the Stop hook's guard stays cheap); stdlib only.
Env assignments (`PGPASSWORD=… psql`) are labelled values, found by cuectx.secrets itself.

`names_a_program(text)` is the cheap test before parsing (cue's scrubber uses both).
"""
from __future__ import annotations

import re
from collections.abc import Iterator

# Programs that take a password as an argument, and the flag that carries it.
# "glued:-p": only `-pVALUE` (mysql's `-p VALUE` prompts, and VALUE is the database).
FLAGS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlshow",
                     "mysqlsh", "mariadb", "mariadb-dump", "mysqlpump", "mydumper"), ("glued:-p",)),
    "sshpass": ("-p", "glued:-p"),
    **dict.fromkeys(("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane"),
                    ("-p",)),
    **dict.fromkeys(("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport",
                     "mongostat", "mongotop"), ("-p",)),
    "redis-cli": ("-a",),
    **dict.fromkeys(("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd",
                     "ldapcompare", "ldapmodrdn"), ("-w",)),
    "zip": ("-P",), "unzip": ("-P",), "7z": ("glued:-p",), "7za": ("glued:-p",),
    "openssl": ("-k", "pass:"), "keytool": ("-storepass", "-keypass", "-srcstorepass", "-deststorepass"),
    "jarsigner": ("-storepass", "-keypass"), "smbclient": ("user%",), "rpcclient": ("user%",),
    "az": ("-p",), "sqlcmd": ("-P",), "bcp": ("-P",), "xfreerdp": ("/p:",), "rdesktop": ("-p",),
    "ssh-keygen": ("-N", "-P"), "rabbitmqctl": ("add_user", "change_password"),
    "htpasswd": ("htpasswd",), "sqlplus": ("sqlplus",), "vault": ("login", "unseal"),
    "chpasswd": ("echo",), "sudo": ("echo",),
}
PROGRAMS = frozenset(FLAGS)
# A command ends at a pipe, `&&`, `;`, a newline or a backtick (`$(…)`'s older form, and the
# inline code a digest or chat shows a command in: "ran `sshpass -p … ssh nas` in a terminal").
_SPLIT = r"\|\||&&|[|;\n`]"
# A shell word: bare and quoted parts back to back (`-p'S3 cret'` is one word).
_TOKEN = r"(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"|;&`]+)+"


def password_args(text: str) -> Iterator[tuple[int, str, str]]:
    """(start, the argument as written — maybe quoted —, how sure): "short" (a glued `-p`, a
    positional argument: any 4+ characters), "flag" (after its flag) or "random" (a
    positional token, e.g. `vault login X`: only when it looks random)."""
    pos = 0
    for seg in re.split(f"({_SPLIT})", text):
        seg_start, pos = pos, pos + len(seg)
        if not seg.strip() or seg in ("|", "||", "&&", ";", "\n", "`"):
            continue
        toks = [(m.start() + seg_start, m[0]) for m in re.finditer(_TOKEN, seg)]
        names = [t.rsplit("/", 1)[-1] for _, t in toks]
        prog_i = next((i for i, n in enumerate(names) if n in FLAGS), None)
        if prog_i is None:
            continue
        prog = names[prog_i]
        flags = FLAGS[prog]
        args = toks[prog_i + 1:]
        if flags == ("-p",) and prog not in ("az", "rdesktop") and not prog.startswith("mongo") \
                and not any(t == "login" for _, t in args):
            continue  # `docker run -p 5432:5432`: only `login` takes a password
        if prog in ("sudo", "chpasswd"):
            # `echo 'pw' | sudo -S …`: the password is what the previous segment echoed
            if prog == "sudo" and not any(t == "-S" or (t.startswith("-") and "S" in t and not t.startswith("--"))
                                          for _, t in args):
                continue
            before = text[max(0, seg_start - 200):seg_start]
            em = re.search(r"(?:echo|printf)(?:[ \t]+-[ne]+)?[ \t]+('[^'\n]+'|\"[^\"\n]+\"|\S+)[ \t]*\|[ \t]*$", before)
            if em:
                raw, start = em[1], seg_start - len(before) + em.start(1)
                if prog == "chpasswd" and ":" in raw:  # `echo 'user:pw' | chpasswd`
                    cut = raw.index(":") + 1
                    raw, start = raw[cut:].rstrip("'\""), start + cut
                yield start, raw, "short"
            continue
        for k, (start, tok) in enumerate(args):
            hit = _argument(flags, args, k, start, tok)
            if hit is not None:
                short = any(f.startswith("glued") for f in flags) or prog in ("rabbitmqctl", "htpasswd")
                yield hit[0], hit[1], hit[2] if len(hit) > 2 else ("short" if short else "flag")


def _argument(flags: tuple[str, ...], args: list[tuple[int, str]], k: int, start: int, tok: str):
    nxt = args[k + 1] if k + 1 < len(args) else None
    for flag in flags:
        if flag.startswith("glued:"):
            f = flag[6:]
            if tok.startswith(f) and len(tok) > len(f) and not tok.startswith(f + "-"):
                v = tok[len(f):]
                if v.startswith("="):
                    v, start = v[1:], start + 1
                return start + len(f), v
        elif flag == "pass:":
            if tok.startswith("pass:"):
                return start + 5, tok[5:]
        elif flag == "user%":
            if "%" in tok and not tok.startswith("%"):
                return start + tok.index("%") + 1, tok[tok.index("%") + 1:]
        elif flag == "/p:":
            if tok.lower().startswith("/p:"):
                return start + 3, tok[3:]
        elif flag in ("add_user", "change_password"):
            if tok == flag and k + 2 < len(args):
                return args[k + 2]
        elif flag == "htpasswd":
            if k == 0 and tok.startswith("-") and "b" in tok:
                rest = [a for a in args[1:] if not a[1].startswith("-")]
                need = 2 if "n" in tok else 3  # -bn: no file argument
                if len(rest) >= need:
                    return rest[need - 1]
        elif flag == "sqlplus":
            um = re.match(r"[^/\s]+/([^@\s]+)(?:@|$)", tok) if k == 0 else None
            if um:
                return start + um.start(1), um[1]
        elif flag in ("login", "unseal"):
            if tok == flag and nxt is not None:
                cand = [a for a in args[k + 1:] if not a[1].startswith("-")]
                if cand:
                    return cand[0][0], cand[0][1], "random"
        elif tok == flag and nxt is not None:
            return nxt
    return None


# The programs above as words ("/usr/bin/mysql" and "`sshpass" count; "mysqlclient" does not):
# a text naming none of them holds no command-line password, and costs one search.
_PROGRAM_RE = re.compile(r"(?<![\w.\-])(?:" + "|".join(
    re.escape(p) for p in sorted(PROGRAMS, key=lambda p: (-len(p), p))) + r")(?![\w\-])")


def names_a_program(text: str) -> bool:
    """Whether `text` names a program that takes a password as an argument."""
    return _PROGRAM_RE.search(text) is not None
