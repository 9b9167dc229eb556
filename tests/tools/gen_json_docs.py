#!/usr/bin/python3
"""gen_json_docs.py - documents and expected outputs for the JSON
differential test (tests/cli/test_json_differential.sh).

Writes into OUTDIR:
  docs.txt            one document per line (random + hand-written edge
                      cases + mutated, mostly invalid, variants)
  pretty_docs.txt     the documents whose indent=2 form Python can produce
  <mode>.expected     what /usr/bin/python3 prints for each line, as
                      `tunectl json <mode> --lines` must print it: the
                      result, or "!" + str(exception)

Everything is derived from one seed, so a failure reproduces exactly.
Lines never contain a raw "\\n" (it separates documents); "\\r" and "\\t"
appear as whitespace.

Usage: gen_json_docs.py OUTDIR [COUNT] [SEED]
"""
import hashlib
import json
import os
import random
import struct
import sys

MODES = {
    # name: (subcommand, ensure_ascii, allow_nan)
    "canonical": ("canonical", False, True),
    "canonical_ascii": ("canonical", True, True),
    "canonical_ascii_nonan": ("canonical", True, False),
    "digest": ("digest", False, True),
    "digest_ascii": ("digest", True, True),
    "pretty": ("pretty", False, True),
    "pretty_ascii": ("pretty", True, True),
}

WS = ["", "", "", " ", "  ", "\t", "\r", " \r\t "]

# Hand-written edge cases (one document each; "\\" is a JSON backslash).
EDGE = [
    '0', '-0', '1', '-1', '123456789012345678901234567890',
    '-0.0', '0.0', '0e0', '0E+0', '-0e-0', '1e400', '-1e400', '1e-400',
    '-1e-400', '1E+2', '1e-5', '1e16', '1e15', '9999999999999999.0',
    '1e22', '1e23', '5e-324', '4.9406564584124654e-324', '2.4703282292062327e-324',
    '2.4703282292062328e-324', '1.7976931348623157e308', '1.7976931348623158e308',
    '1.7976931348623159e308', '0.1', '0.30000000000000004', '100.0', '1.5e16',
    '123456789012345680000.0', '9007199254740993.0', '9007199254740993',
    '0.000001', '0.0001', '0.00001', '1.0e-4', '123e-20', '2.2250738585072014e-308',
    '2.2250738585072011e-308', '1' + '0' * 400 + '.0', '0.' + '0' * 400 + '1',
    '1' * 4300, '-' + '1' * 4300, '1' * 4301, '-' + '1' * 4301, '1' * 4400 + '.5',
    'NaN', 'Infinity', '-Infinity', '[NaN,Infinity,-Infinity]', '{"a":NaN}',
    'true', 'false', 'null', '""', '"\\u0000"', '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
    '"\\u00e9\\u00E9\\uFFFF\\uffff\\u2028\\u2029\\u007f\\u0080\\u009f"',
    '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\\ud800"', '"\\udc00"', '"\\udfff"',
    '"\\ude00\\ud83d"', '"\\ud800\\ud800"', '"\\ud800\\ud800\\udc00"',
    '"\\ud83d x"', '"\\ud83d\\u0041"', '"a\\ud800b\\udc00c"', '{"\\ud800":1}',
    '{"\\ud800":1,"\\udc00":2,"\\ue000":3,"\\uffff":4,"\\ud83d\\ude00":5}',
    '["\\ud800","\\ud801"]', '"\\ud800\\udbff\\udc00"',
    '"\x7f"', '"\u00e9\u4e2d\U0001F600"', '"\u2028\u2029"', '"\ufeff"',
    '{"b":1,"a":2,"c":{"z":[],"y":{}}}', '{"a":1,"a":2}', '{"a":{"x":1},"a":[2]}',
    '{"":0," ":1,"\\u0000":2,"\\u0001":3}', '{"\u00e9":1,"e":2,"\U0001F600":3,"\uffff":4}',
    '[]', '{}', '[[]]', '[{}]', '{"a":[]}', '[[[[[[[[[[]]]]]]]]]]',
    ' \t\r [ 1 , 2 ] \r\t ', '[1,2,]', '[1,,2]', '{"a":1,}', '{,}', '[,]',
    '{"a" 1}', '{"a":1 "b":2}', '{"a"}', '{"a":}', '{1:2}', "{'a':1}",
    '"abc', '"\\', '"\\u', '"\\u12', '"\\u123', '"\\u1234', '"\\u1234"',
    '"\\uZZZZ"', '"\\x41"', '"\\ud800\\uZZZZ"', '"\\ud800\\u12"', '"\\ud800\\udc0"',
    '"\\ud800\\udc00', '"\\ud800\\', '"\t"', '"\x1f"', '"\x00"',
    '01', '-01', '+1', '.5', '1.', '1.e5', '1e', '1e+', '1E-', '0x10', '-', '--1',
    '-a', 'nan', 'inf', '-NaN', '-Infinity1', 'Infinity1', 'NaN1', 'nul', 'nulll',
    'tru', 'True', 'None', 'fals', '[1] [2]', '1 2', '"a" "b"', '[', ']', '{',
    '}', '', ' ', '\t\r', '\ufeff{}', '\ufeff', ' \ufeff1', '1\ufeff', '[1\u00e9]',
    '\u00e9', '// c', '/* c */ 1', '[1,2', '{"a":1', '{"a"', '{"a":', '[1 2]',
    '[' * 500 + ']' * 500, '{"a":' * 300 + '1' + '}' * 300,
    '[' * 1001 + ']' * 1001, '[' * 100000 + ']' * 100000,
    '{"a":' * 1001 + '1' + '}' * 1001, '[' * 1001, '[' * 500 + '"\\x"',
]

# Bytes that are not valid UTF-8 (checked against Python's decoder).
BAD_UTF8 = [
    b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xc2", b"\xc2\x41", b"\xe0\x80\x80",
    b"\xe0\xa0", b"\xe0\xa0\x41", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xef\xbf",
    b"\xf0\x80\x80\x80", b"\xf0\x90", b"\xf0\x90\x80", b"\xf0\x90\x80\x41",
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf8", b"\xfe", b"\xff",
]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def ws(self):
        return self.r.choice(WS)

    # ---- strings ----------------------------------------------------------
    def rand_char(self):
        r = self.r.random()
        if r < 0.55:
            return self.r.choice("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789_-./:")
        if r < 0.62:
            return self.r.choice('"\\/\b\f\n\r\t')
        if r < 0.67:
            return chr(self.r.randrange(0, 0x20))
        if r < 0.70:
            return chr(self.r.choice([0x7f, 0x80, 0x9f, 0xa0, 0xad, 0xff]))
        if r < 0.80:
            return chr(self.r.randrange(0x80, 0x800))
        if r < 0.88:
            c = self.r.randrange(0x800, 0x10000)
            return chr(c if not 0xD800 <= c <= 0xDFFF else 0x4e2d)
        return chr(self.r.randrange(0x10000, 0x110000))

    def rand_str(self, maxlen=12):
        n = self.r.choice([0, 1, 2, 3, 5, 8, maxlen, self.r.randrange(0, 3 * maxlen + 1)])
        s = [self.rand_char() for _ in range(n)]
        if self.r.random() < 0.01:      # lone surrogates: UTF-8 cannot encode them
            for _ in range(self.r.choice([1, 1, 2, 3])):
                s.insert(self.r.randrange(0, len(s) + 1), chr(self.r.randrange(0xD800, 0xE000)))
        return "".join(s)

    def enc_char(self, c):
        o = ord(c)
        short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                 "\r": "\\r", "\t": "\\t"}
        if c in short and (c in '"\\' or o < 0x20 or self.r.random() < 0.8):
            return short[c]
        hexd = "%04x" if self.r.random() < 0.5 else "%04X"
        must = o < 0x20 or 0xD800 <= o <= 0xDFFF
        if must or self.r.random() < 0.15:
            if o >= 0x10000:
                o -= 0x10000
                return "\\u" + hexd % (0xD800 | (o >> 10)) + "\\u" + hexd % (0xDC00 | (o & 0x3FF))
            return "\\u" + hexd % o
        if c == "/" and self.r.random() < 0.5:
            return "\\/"
        return c

    def enc_str(self, s):
        return '"' + "".join(self.enc_char(c) for c in s) + '"'

    # ---- numbers ----------------------------------------------------------
    def rand_int(self):
        r = self.r.random()
        if r < 0.5:
            v = self.r.randrange(-1000, 1000)
        elif r < 0.8:
            v = self.r.randrange(-2 ** 64, 2 ** 64)
        elif r < 0.995:
            v = self.r.randrange(10 ** self.r.randrange(1, 60))
        else:
            v = self.r.randrange(10 ** self.r.randrange(60, 4300))
        s = str(v)
        if v == 0 and self.r.random() < 0.3:
            s = "-0"
        elif v >= 0 and self.r.random() < 0.3:
            s = "-" + s
        return s

    def rand_float(self):
        r = self.r.random()
        if r < 0.35:
            bits = self.r.getrandbits(64)
            d = struct.unpack("<d", struct.pack("<Q", bits))[0]
            if d != d or d in (float("inf"), float("-inf")):
                d = 1.5
            s = repr(d)
            if "e" not in s and "." not in s:
                s += ".0"
            if self.r.random() < 0.2:
                s = "%.17g" % d
                if "e" not in s and "." not in s:
                    s += ".0"
            s = s.replace("e+", self.r.choice(["e+", "E+", "e", "E"]))
            return s
        if r < 0.6:
            d = self.r.choice([self.r.random(), self.r.uniform(-1e6, 1e6),
                               self.r.lognormvariate(0, 40), round(self.r.uniform(0, 100), 2)])
            s = repr(d)
            return s if ("e" in s or "." in s) else s + ".0"
        if r < 0.75:
            # exact integers written as floats, powers of two, ties
            k = self.r.randrange(-1074, 1024)
            d = 2.0 ** k if k > -1075 else 5e-324
            if self.r.random() < 0.5 and abs(k) < 60:
                d += self.r.choice([0.25, 0.5, 0.75, 1.5])
            return repr(d) if ("e" in repr(d) or "." in repr(d)) else repr(d) + ".0"
        # free-form decimal text
        ip = str(self.r.randrange(0, 10 ** self.r.randrange(1, 25)))
        s = ("-" if self.r.random() < 0.3 else "") + ip
        if self.r.random() < 0.7:
            s += "." + "".join(self.r.choice("0123456789") for _ in range(self.r.randrange(1, 30)))
        if self.r.random() < 0.6 or "." not in s:
            s += self.r.choice("eE") + self.r.choice(["", "+", "-"]) + str(self.r.randrange(0, 400))
        return s

    def rand_number(self):
        return self.rand_int() if self.r.random() < 0.45 else self.rand_float()

    # ---- values -----------------------------------------------------------
    def leaf(self):
        r = self.r.random()
        if r < 0.35:
            return self.enc_str(self.rand_str())
        if r < 0.8:
            return self.rand_number()
        return self.r.choice(["true", "false", "null", "NaN", "Infinity", "-Infinity"])

    def value(self, depth):
        r = self.r.random()
        if depth <= 0 or r < 0.4:
            return self.leaf()
        if r < 0.7:
            n = self.r.choice([0, 1, 2, 3, 4, 6, 10])
            return "[" + self.ws() + ("," + self.ws()).join(
                self.value(depth - 1) + self.ws() for _ in range(n)) + "]"
        n = self.r.choice([0, 1, 2, 3, 5, 8])
        pool = [self.rand_str(4) for _ in range(max(1, n // 2 + 1))]
        members = []
        for _ in range(n):
            k = self.r.choice(pool) if self.r.random() < 0.3 else self.rand_str(6)
            members.append(self.ws() + self.enc_str(k) + self.ws() + ":" + self.ws() +
                           self.value(depth - 1) + self.ws())
        return "{" + self.ws() + ",".join(members) + "}"

    def big_object(self):
        n = self.r.randrange(200, 2000)
        keys = [self.rand_str(8) for _ in range(n)]
        keys += self.r.sample(keys, n // 10)     # duplicates
        self.r.shuffle(keys)
        return "{" + ",".join(self.enc_str(k) + ":" + self.leaf() for k in keys) + "}"

    def deep(self):
        depth = self.r.randrange(50, 800)
        opens, closes = [], []
        for _ in range(depth):
            if self.r.random() < 0.5:
                opens.append("[")
                closes.append("]")
            else:
                k = self.enc_str(self.rand_str(3))
                opens.append("{" + k + ":")
                closes.append("}")
        return "".join(opens) + self.leaf() + "".join(reversed(closes))

    def document(self):
        r = self.r.random()
        if r < 0.003:
            return self.big_object()
        if r < 0.013:
            return self.deep()
        return self.ws() + self.value(self.r.choice([1, 2, 3, 4, 6])) + self.ws()

    def mutate(self, b):
        r = self.r.random()
        pos = self.r.randrange(0, len(b) + 1)
        if r < 0.25:
            return b[:pos]
        if r < 0.5 and b:
            pos = min(pos, len(b) - 1)
            return b[:pos] + b[pos + 1:]
        ins = self.r.choice([b",", b"]", b"}", b"[", b"{", b'"', b"\\", b":", b"x", b"0",
                             b"-", b".", b"e", b"\x00", b"\x1f", b"\x7f", b" ", b"\r",
                             b"N", b"I", b"\xef\xbb\xbf", b"\xc3\xa9"] + BAD_UTF8)
        if r < 0.75:
            return b[:pos] + ins + b[pos:]
        if b:
            pos = min(pos, len(b) - 1)
            return b[:pos] + ins + b[pos + 1:]
        return ins


def run_python(line, ensure_ascii, allow_nan, pretty):
    """What tunectl must print for one --lines document (bytes)."""
    try:
        s = line.decode("utf-8")
        v = json.loads(s)
        if pretty:
            out = json.dumps(v, sort_keys=True, indent=2, ensure_ascii=ensure_ascii,
                             allow_nan=allow_nan) + "\n"
        else:
            out = json.dumps(v, sort_keys=True, separators=(",", ":"),
                             ensure_ascii=ensure_ascii, allow_nan=allow_nan)
        return out.encode("utf-8")
    except (ValueError, RecursionError) as e:     # incl. Unicode*Error
        return ("!" + str(e)).encode("utf-8", "surrogateescape")


def main():
    outdir = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20240611
    g = Gen(seed)
    docs = [e.encode("utf-8") for e in EDGE]
    docs += [b"[1," + bad + b"]" for bad in BAD_UTF8]
    docs += [b'"' + bad + b'"' for bad in BAD_UTF8]
    docs += [b"[" + bad for bad in BAD_UTF8]
    while len(docs) < count + len(EDGE):
        d = g.document().encode("utf-8", "surrogatepass")
        docs.append(d)
        if g.r.random() < 0.2:
            docs.append(g.mutate(d))
    for d in docs:
        assert b"\n" not in d, d
    sys.setrecursionlimit(1000)
    with open(os.path.join(outdir, "docs.txt"), "wb") as f:
        f.write(b"\n".join(docs) + b"\n")
    # The indent=2 form of deep documents is large and Python's pure-Python
    # indenting encoder runs out of recursion early: keep those out.
    pretty_docs = [d for d in docs if len(d) < 20000 and d.count(b"[") + d.count(b"{") < 200]
    with open(os.path.join(outdir, "pretty_docs.txt"), "wb") as f:
        f.write(b"\n".join(pretty_docs) + b"\n")
    for name, (cmd, ensure_ascii, allow_nan) in MODES.items():
        src = pretty_docs if cmd == "pretty" else docs
        with open(os.path.join(outdir, name + ".expected"), "wb") as f:
            for d in src:
                res = run_python(d, ensure_ascii, allow_nan, cmd == "pretty")
                if cmd == "digest" and not res.startswith(b"!"):
                    res = hashlib.sha256(res).hexdigest().encode() + b"\n"
                elif cmd == "canonical" or res.startswith(b"!"):
                    res += b"\n"
                f.write(res)


if __name__ == "__main__":
    main()
