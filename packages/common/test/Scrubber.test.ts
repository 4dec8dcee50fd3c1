import { Scrubber } from "@zett/common"
import * as fc from "fast-check"
import { assert, describe, it } from "vitest"

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64")

/** Every 8-character slice of `secret` that `text` holds and `clear` (the text around it) does not. */
const leakedSlices = (text: string, secret: string, clear: string): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i + 8 <= secret.length; i++) {
    const slice = secret.slice(i, i + 8)
    if (text.includes(slice) && !clear.includes(slice)) out.push(slice)
  }
  return out
}

describe("Scrubber", () => {
  it("a secret with a lone surrogate is scrubbed like any other, in its form as text and as a URL encodes it", () => {
    const secret = "key-\ud800-of-the-fleet"
    const scrubber = Scrubber.make([secret])
    assert.strictEqual(scrubber.scrub(`token ${secret} here`), `token ${Scrubber.replacement} here`)
    assert.notInclude(
      scrubber.scrub(`https://x.example/?k=${encodeURIComponent(secret.toWellFormed())}`),
      "of-the-fleet"
    )
  })

  it("removes the whole value, the token after a scheme, user:pass halves, and their encoded forms (B2)", () => {
    const token = "tok-ABCDEFGH12/+="
    const user = "alice-admin"
    const pass = "pa$$ word:99"
    const scrubber = Scrubber.make([
      `Bearer ${token}`,
      `Basic ${base64(`${user}:${pass}`)}`,
      "postgres://dbuser:s3cr%2Ft-pw@db.example/x",
      "Token   ghp_0123456789abcdef  "
    ])
    const cases = [
      `Bearer ${token}`,
      `token ${token} is revoked`,
      `user ${user} has password ${pass}`,
      `url-encoded ${encodeURIComponent(token)} and ${encodeURIComponent(token).toLowerCase()}`,
      `form-encoded ${encodeURIComponent(pass).replace(/%20/g, "+")}`,
      `json ${JSON.stringify({ pass }).slice(1, -1)}`,
      `base64 of the token ${base64(token)}`,
      `base64 inside more base64: ${base64(`x${token}`)} ${base64(`xy${token}yz`)}`,
      `base64url ${Buffer.from(`..${token}`).toString("base64url")}`,
      `the whole basic credential ${base64(`${user}:${pass}`)}`,
      "the url's password s3cr/t-pw, or s3cr%2Ft-pw, and user dbuser",
      "the scheme's token ghp_0123456789abcdef"
    ]
    for (const text of cases) {
      const out = scrubber.scrub(text)
      assert.include(out, "<redacted>", text)
      for (const secret of [token, user, pass, "s3cr/t-pw", "dbuser", "ghp_0123456789abcdef"]) {
        assert.notInclude(out, secret, text)
        assert.notInclude(out, encodeURIComponent(secret), text)
        assert.notInclude(out, base64(secret).replace(/=+$/, ""), text)
      }
    }
    assert.strictEqual(scrubber.scrub(`token ${token} is revoked`), "token <redacted> is revoked")
  })

  it("leaves text without secrets, and values under four characters, alone (B2)", () => {
    const scrubber = Scrubber.make(["abc", ""])
    assert.isTrue(scrubber.isEmpty)
    assert.strictEqual(scrubber.scrub("abc abc"), "abc abc")
    const real = Scrubber.make(["a-long-secret"])
    const value = { a: ["x", { b: "y" }], c: 1 }
    assert.strictEqual(real.scrubDeep(value), value)
    assert.strictEqual(real.scrub("nothing here"), "nothing here")
  })

  it("scrubDeep replaces secrets in strings and keys at any depth, and copies only what changed (B2)", () => {
    const scrubber = Scrubber.make(["sk-deep-secret-1"])
    const untouched = { keep: ["plain"] }
    const value = { untouched, list: ["a", { ["key sk-deep-secret-1"]: "v sk-deep-secret-1" }], n: 3 }
    const out: unknown = scrubber.scrubDeep(value)
    assert.deepStrictEqual(out, { untouched, list: ["a", { "key <redacted>": "v <redacted>" }], n: 3 })
    assert.strictEqual((out as typeof value).untouched, untouched)
    assert.include(JSON.stringify(value), "sk-deep-secret-1")
    // a hostile depth is cut, not walked into a stack overflow
    let nested: unknown = "sk-deep-secret-1"
    for (let i = 0; i < 20_000; i++) nested = [nested]
    assert.notInclude(JSON.stringify(scrubber.scrubDeep({ nested }).nested, null, 0).slice(-200), "sk-deep-secret-1")
  })

  it("scrubTruncated removes a secret that a cut left half-written at the end (B2)", () => {
    const scrubber = Scrubber.make(["env-secret-0123456789abcdef0123456789"])
    const cut = `log line ... env-secret-0123456789abcdef`
    assert.strictEqual(scrubber.scrubTruncated(cut), "log line ... <redacted>")
    assert.strictEqual(scrubber.scrubTruncated("no secret at the end"), "no secret at the end")
  })

  it("the edges: four characters are a secret, three are not; the longest form wins; forms are exact (B2)", () => {
    assert.strictEqual(Scrubber.make(["abcd"]).scrub("x abcd y"), "x <redacted> y")
    assert.isTrue(Scrubber.make(["abc"]).isEmpty)
    assert.isFalse(Scrubber.make(["abcd"]).isEmpty)
    // the whole header value goes as one, not as "Bearer <redacted>"
    assert.strictEqual(Scrubber.make(["Bearer tok-123456"]).scrub("sent Bearer tok-123456"), "sent <redacted>")
    // a value with spaces around it, the credential of another scheme, a bare user:pass value
    assert.strictEqual(Scrubber.make(["  tok-ABCDEF12  "]).scrub("tok-ABCDEF12"), "<redacted>")
    assert.strictEqual(
      Scrubber.make(["alice99:s3cretpw"]).scrub("pw s3cretpw user alice99"),
      "pw <redacted> user <redacted>"
    )
    // not a pair: a colon at either end, or words with spaces
    assert.strictEqual(Scrubber.make([":passpass"]).scrub("passpass"), "passpass")
    assert.strictEqual(Scrubber.make(["useruser:"]).scrub("useruser"), "useruser")
    assert.strictEqual(Scrubber.make(["word one:two words"]).scrub("two words"), "two words")
    // only Basic carries a user:pass pair in base64
    const pair = Buffer.from("someuser:somepass").toString("base64")
    assert.strictEqual(Scrubber.make([`Token ${pair}`]).scrub("somepass"), "somepass")
    assert.strictEqual(Scrubber.make([`Basic ${pair}`]).scrub("somepass"), "<redacted>")
    // a URL's user info only when the value is a URL
    assert.strictEqual(Scrubber.make(["see https://ann:pw-12345@host"]).scrub("pw-12345"), "pw-12345")
    // lower-case percent escapes, JSON escapes, base64url at every alignment
    assert.strictEqual(Scrubber.make(["Ab/Cd+Ef"]).scrub("Ab%2fCd%2bEf"), "<redacted>")
    assert.strictEqual(
      Scrubber.make(["pa\"ss\\word"]).scrub(JSON.stringify({ p: "pa\"ss\\word" })),
      "{\"p\":\"<redacted>\"}"
    )
    for (const prefix of ["", "x", "xy"]) {
      const encoded = Buffer.from(`${prefix}tok-ABCDEFGH12`).toString("base64url")
      assert.include(Scrubber.make(["tok-ABCDEFGH12"]).scrub(`[${encoded}]`), "<redacted>", prefix)
    }
  })

  it("scrubTruncated removes a tail of three characters or more that begins a secret, and keeps shorter ones (B2)", () => {
    const scrubber = Scrubber.make(["xyzsecret1"])
    assert.strictEqual(scrubber.scrubTruncated("line xyz"), "line <redacted>")
    assert.strictEqual(scrubber.scrubTruncated("line xy"), "line xy")
    assert.strictEqual(scrubber.scrubTruncated("line xyzsecre"), "line <redacted>")
  })

  it("scrubDeep keeps key order, writable properties, objects without a prototype, nulls, and cuts deep objects (B2)", () => {
    const scrubber = Scrubber.make(["sk-deep-secret-1"])
    const out = scrubber.scrubDeep({ a: 1, b: "sk-deep-secret-1", c: null, d: [null, "sk-deep-secret-1"] }) as Record<
      string,
      unknown
    >
    assert.deepStrictEqual(Object.keys(out), ["a", "b", "c", "d"])
    assert.deepStrictEqual(out, { a: 1, b: "<redacted>", c: null, d: [null, "<redacted>"] })
    const descriptor = Object.getOwnPropertyDescriptor(out, "b")!
    assert.isTrue(descriptor.writable && descriptor.configurable && descriptor.enumerable)
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: "sk-deep-secret-1" })
    assert.deepStrictEqual({ ...(scrubber.scrubDeep(bare) as Record<string, unknown>) }, { k: "<redacted>" })
    let nested: Record<string, unknown> = { leaf: "sk-deep-secret-1" }
    for (let i = 0; i < 300; i++) nested = { next: nested }
    let walked = scrubber.scrubDeep(nested) as Record<string, unknown>
    let depth = 0
    while (typeof walked === "object" && walked !== null && "next" in walked) {
      walked = walked.next as Record<string, unknown>
      depth++
    }
    assert.strictEqual(depth, 256)
    assert.strictEqual(walked as unknown, "[nested too deeply]")
  })

  it("a Basic credential is split only when it decodes to text; other schemes, URLs and bare values (B2)", () => {
    // standard base64 with "+" and "/" decodes too (the url-safe alphabet is for "-" and "_")
    const pair = Buffer.from("someuser:pass>>>word??").toString("base64")
    assert.match(pair, /[+/]/)
    assert.strictEqual(Scrubber.make([`Basic ${pair}`]).scrub("pw pass>>>word??"), "pw <redacted>")
    // bytes that are not text (invalid UTF-8, control characters) carry no user:pass pair
    const binary = Buffer.concat([Buffer.from([0xff]), Buffer.from("user:word1234")]).toString("base64")
    assert.strictEqual(Scrubber.make([`Basic ${binary}`]).scrub("word1234"), "word1234")
    const control = Buffer.from("user\u0001:word5678").toString("base64")
    assert.strictEqual(Scrubber.make([`Basic ${control}`]).scrub("word5678"), "word5678")
    // a Basic credential that is not base64 at all is still a secret as a whole
    assert.strictEqual(Scrubber.make(["Basic not*base64!"]).scrub("got not*base64!"), "got <redacted>")
    // a URL's user info is its secret, not the halves around its first colon (the scheme)
    const url = Scrubber.make(["postgres://dbuser:pw-12345@db.example/x"])
    assert.strictEqual(url.scrub("the postgres driver, user dbuser"), "the postgres driver, user <redacted>")
    // a user name that is not valid percent-encoding is kept as written
    assert.strictEqual(Scrubber.make(["https://us%ZZer:pw-12345@host"]).scrub("us%ZZer"), "<redacted>")
    // a value that only looks like a URL with user info (an invalid host) is split as a pair
    const invalid = Scrubber.make(["http://user1:pass-1234@[bad"])
    assert.strictEqual(invalid.scrub("//user1:pass-1234@[bad"), "<redacted>")
    // user info that is not at the value's start does not make it a URL: it is split at its first colon
    const mailto = Scrubber.make(["mailto:https://ann:pw-12345@host"])
    assert.strictEqual(mailto.scrub("https://ann:pw-12345@host"), "<redacted>")
    // a value that is not a pair adds no other secret (the text is Stryker's placeholder for a made-up array item)
    assert.strictEqual(Scrubber.make(["useruser:"]).scrub("Stryker was here"), "Stryker was here")
    // the encodings of a half shorter than four characters are not secrets either
    assert.strictEqual(Scrubber.make(["abc:defghij"]).scrub(`abc ${base64("abc")}`), `abc ${base64("abc")}`)
  })

  it("each form replaces exactly what it covers: the raw value, the padded base64, only the secret's own bits (B2)", () => {
    // the raw value, when its URI and JSON forms both differ from it
    assert.strictEqual(Scrubber.make(["pa\"ss\\word"]).scrub("pw pa\"ss\\word"), "pw <redacted>")
    // the whole value's base64, padding and the last partial character included
    const token = "tok-ABCDEFGH12/+="
    assert.strictEqual(Scrubber.make([token]).scrub(`x ${base64(token)} y`), "x <redacted> y")
    // inside a larger encoding, the characters that also hold a neighbour's bits stay
    const inner = "tok-ABCDEFGH12"
    const scrubber = Scrubber.make([inner])
    const zero = (n: number) => Buffer.concat([Buffer.alloc(n), Buffer.from(inner)]).toString("base64url")
    assert.strictEqual(zero(1), "AHRvay1BQkNERUZHSDEy")
    assert.strictEqual(scrubber.scrub(zero(1)), "AH<redacted>")
    assert.strictEqual(scrubber.scrub(zero(2)), "AAB<redacted>g")
    // the longest form wins whichever secret it came from
    assert.strictEqual(Scrubber.make(["tok-123456", "tok-123456789"]).scrub("a tok-123456789 b"), "a <redacted> b")
    assert.strictEqual(Scrubber.make(["tok-123456789", "tok-123456"]).scrub("a tok-123456789 b"), "a <redacted> b")
  })

  it("scrubTruncated cuts the longest tail that begins a form, and leaves what the replacement spells (B2)", () => {
    const scrubber = Scrubber.make(["qrstuvwxyz0123456789", "xyzabc1"])
    // "qrstuvwxyz" begins the first secret, "xyz" the second: the longer tail is cut
    assert.strictEqual(scrubber.scrubTruncated("line qrstuvwxyz"), "line <redacted>")
    // only strict beginnings count: a whole form left after scrub can only be spelled with the
    // replacement's own characters, and is not a secret of the text
    assert.strictEqual(Scrubber.make(["abcd", "d>>xyz"]).scrubTruncated("abcd>xyz"), "<redacted>>xyz")
  })

  it("scrubDeep copies a record whose key alone changed, and keeps class instances, undefined and functions (B2)", () => {
    const scrubber = Scrubber.make(["sk-deep-secret-1"])
    assert.deepStrictEqual(scrubber.scrubDeep<unknown>({ "k sk-deep-secret-1": 1 }), { "k <redacted>": 1 })
    class Box {
      constructor(readonly v: string) {}
    }
    const box = new Box("sk-deep-secret-1")
    const fn = () => 1
    const out = scrubber.scrubDeep({ box, u: undefined, fn, s: "sk-deep-secret-1" })
    assert.strictEqual(out.box, box)
    assert.strictEqual(out.fn, fn)
    assert.deepStrictEqual(Object.entries(out), [["box", box], ["u", undefined], ["fn", fn], ["s", "<redacted>"]])
    // a number at the depth limit is a leaf, not a value too deep to walk
    let nested: unknown = 7
    for (let i = 0; i < 255; i++) nested = [nested]
    // the outer array is at depth 0, so the number is at depth 256
    let walked = scrubber.scrubDeep([nested, "sk-deep-secret-1"])[0]
    for (let i = 0; i < 255; i++) walked = (walked as Array<unknown>)[0]
    assert.strictEqual(walked, 7)
  })

  it("property: a secret embedded anywhere, bare or in its forms, leaves no 8-character slice behind (B2)", () => {
    const secretChar = fc.constantFrom(
      ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=:@!$%&*# é€"
    )
    const textChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz ABCXYZ0189:/=+-_%\"\\{}[],.\n")
    const secretArb = fc.array(secretChar, { minLength: 8, maxLength: 40 }).map((chars) => chars.join(""))
      .filter((s) => s.trim() === s && !/\s{2}/.test(s))
    const textArb = fc.array(textChar, { maxLength: 60 }).map((chars) => chars.join(""))
    const formArb = fc.constantFrom("bare", "bearer", "uri", "json", "base64", "base64-inside", "basic-half")
    fc.assert(
      fc.property(
        secretArb,
        fc.array(fc.tuple(textArb, formArb), { minLength: 1, maxLength: 4 }),
        textArb,
        (secret, pieces, tail) => {
          const clear = pieces.map(([text]) => text).join("") + tail
          const basic = `Basic ${base64(`someone:${secret}`)}`
          const scrubber = Scrubber.make([`Bearer ${secret}`, basic])
          const forms: Record<string, string> = {
            bare: secret,
            bearer: `Bearer ${secret}`,
            uri: encodeURIComponent(secret),
            json: JSON.stringify(secret).slice(1, -1),
            base64: base64(secret),
            "base64-inside": base64(`ab${secret}cd`),
            "basic-half": secret
          }
          const text = pieces.map(([piece, form]) => piece + forms[form]).join("") + tail
          const out = scrubber.scrub(text)
          assert.deepStrictEqual(
            leakedSlices(out, secret, clear),
            [],
            `${JSON.stringify(text)} -> ${JSON.stringify(out)}`
          )
          for (const [, form] of pieces) {
            if (!clear.includes(forms[form]!)) assert.notInclude(out, forms[form]!)
          }
          // the same text cut anywhere: no slice survives in the head either
          const at = Math.floor(text.length / 2)
          const head = scrubber.scrubTruncated(text.slice(0, at))
          assert.deepStrictEqual(leakedSlices(head, secret, clear), [], `cut ${JSON.stringify(text.slice(0, at))}`)
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("Scrubber.urlSecrets", () => {
  it("the parts of a URL's user info, as written and decoded, and the values of credential-like query parameters", () => {
    assert.deepStrictEqual(
      Scrubber.urlSecrets("https://al%40ice:p%40ss@example.com/mcp?api_key=k1&page=2&token=t1&sig=&Session=s1"),
      ["al%40ice", "al@ice", "p%40ss", "p@ss", "k1", "t1", "s1"]
    )
  })

  it("a URL without credentials has none, and text that is no URL has none", () => {
    assert.deepStrictEqual(Scrubber.urlSecrets("https://example.com/mcp?page=2&q=token"), [])
    assert.deepStrictEqual(Scrubber.urlSecrets("https://user@example.com/"), ["user", "user"])
    assert.deepStrictEqual(Scrubber.urlSecrets("not a url"), [])
  })
})

describe("Scrubber.makeSecrets", () => {
  it("a scrubber extended with the held secrets finds a secret added after it was made, and keeps its own", () => {
    const held = Scrubber.makeSecrets()
    const scrubber = held.extend(Scrubber.make(["own-secret-1"]))
    assert.isFalse(scrubber.isEmpty)
    assert.strictEqual(scrubber.scrub("own-secret-1 later-token-2"), "<redacted> later-token-2")
    held.add(["later-token-2", "redacted-token-3"])
    assert.strictEqual(
      scrubber.scrub("own-secret-1 later-token-2 redacted-token-3"),
      "<redacted> <redacted> <redacted>"
    )
    assert.strictEqual(scrubber.scrubTruncated("x later-tok"), "x <redacted>")
    assert.deepStrictEqual(scrubber.scrubDeep({ a: ["later-token-2"] }), { a: ["<redacted>"] })
  })

  it("values shorter than the minimum are not held; a value added twice is held once", () => {
    const held = Scrubber.makeSecrets()
    assert.isTrue(held.scrubber.isEmpty)
    held.add(["abc"])
    assert.isTrue(held.scrubber.isEmpty, "three characters are too short to hold")
    held.add(["abcd", "abcd"])
    assert.isFalse(held.scrubber.isEmpty)
    assert.strictEqual(held.scrubber.scrub("abcd abc"), "<redacted> abc")
  })

  it("two sets of held secrets are apart", () => {
    const a = Scrubber.makeSecrets()
    const b = Scrubber.makeSecrets()
    a.add(["only-in-a-1"])
    assert.strictEqual(b.scrubber.scrub("only-in-a-1"), "only-in-a-1")
    assert.strictEqual(a.scrubber.scrub("only-in-a-1"), "<redacted>")
  })
})
