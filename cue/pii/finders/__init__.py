"""The finders cue.pii.engine runs inside Presidio, by the kind of entity they find.

    secrets.py      credentials: cuectx.secrets' detector (shared with ctx), key=value and
                    command-line secrets, credentials in URLs (DB URLs, URL user info)
    people.py       names: user names in paths, Korean names with honorifics, titled names
    numbers.py      card numbers (Luhn) and North-American phones
    korean.py       Korean addresses, RRN shapes, names without an honorific
    phrases.py      meeting IDs and passcodes, obfuscated emails, SSNs next to "SSN"
    urls.py         capability URLs (share links, signed URLs, invite codes)
    recognizers.py  what the engine registers: Presidio's own email/IP/phone/RRN/card/IBAN/
                    SSN made offline and precise, meeting URLs, Korean mobiles, and every
                    regex finder above as a SpanRecognizer (`custom_recognizers()`)
    base.py         what the regex finders share: SpanRecognizer, line windows, Hangul mask
    spans.py        FunctionRecognizer: a plain finder function as a Presidio recognizer
"""
