"""The finders cue.pii.engine runs inside Presidio, by the kind of entity they find.

    recognizers.py  Presidio recognizers: secrets (via cuectx.secrets), key=value and
                    command-line secrets, URLs with credentials, meeting URLs, user paths,
                    Korean mobiles and names, titled English names; Presidio's own
                    email/IP/phone/RRN/card/IBAN/SSN made offline and precise
    spans.py        FunctionRecognizer: a plain finder function as a Presidio recognizer
    numbers.py      card numbers (Luhn) and North-American phones
    korean.py       Korean addresses, RRN shapes, names without an honorific
    phrases.py      meeting IDs and passcodes, obfuscated emails, SSNs next to "SSN"
    urls.py         capability URLs (share links, signed URLs, invite codes)
"""
