"""Generate the scrub development set `pii_dev.jsonl` (issue 17), deterministically.

    .venv/bin/python tests/cue/data/make_pii_dev.py     # rewrites pii_dev.jsonl

Faker (ko_KR, en_US, fixed seeds) gives realistic names, addresses, phones, cards; the
templates below put them into the two shapes cue scrubs — digest sentences and window
titles — and add decoys of the same shapes (versions, hashes, order numbers, ports,
public URLs, common Korean words) that must come out unchanged. The JSONL is committed,
so the set does not move when Faker's data changes; rerun this only to change the set.

Record: {"kind": "positive"|"decoy", "lang", "shape": "digest"|"title", "case", "text",
         "entities": [{"type", "value"}], "keep": [...]?, "decoy": kind?}
`keep` lists parts of the text that must survive scrubbing (the text after a cut-off key).
"""
from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path
from urllib.parse import quote

from faker import Faker

OUT = Path(__file__).with_name("pii_dev.jsonl")
SEED = 20261123

rng = random.Random(SEED)
ko = Faker("ko_KR")
ko.seed_instance(SEED)
en = Faker("en_US")
en.seed_instance(SEED)

records: list[dict] = []


def pos(case: str, lang: str, shape: str, text: str, *entities: tuple[str, str], keep=()):
    for _, value in entities:
        assert value in text, (value, text)
    rec = {"kind": "positive", "lang": lang, "shape": shape, "case": case, "text": text,
           "entities": [{"type": t, "value": v} for t, v in entities]}
    if keep:
        rec["keep"] = list(keep)
    records.append(rec)


def decoy(kind: str, lang: str, shape: str, text: str):
    records.append({"kind": "decoy", "lang": lang, "shape": shape, "case": f"decoy_{kind}",
                    "decoy": kind, "text": text, "entities": []})


def pick(seq):
    return rng.choice(seq)


URLSAFE = string.ascii_letters + string.digits + "_-"
UPPER_DIGITS = string.ascii_uppercase + string.digits


def hexs(n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def token(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    classes = [str.isdigit, str.isupper, str.islower]
    needed = [c for c in classes if any(c(ch) for ch in alphabet)]
    while True:
        t = "".join(rng.choice(alphabet) for _ in range(n))
        if all(any(c(ch) for ch in t) for c in needed):
            return t


# --- Korean names: Faker's plus modern given names Faker does not have ---------------------------
MODERN_GIVEN = ["서윤", "하준", "지호", "예린", "수아", "하린", "은우", "지안", "유나", "현우", "채원",
                "다은", "시윤", "윤서", "준서", "서진", "민서", "지율", "태윤", "가은", "하윤", "도윤",
                "예준", "주원", "소율", "이준", "연우", "지원", "승우", "나연"]
SURNAMES = ["김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "오", "서", "신", "권",
            "황", "안", "송", "전", "홍", "문", "양", "배", "백", "허", "남", "노", "하", "곽", "성"]


def ko_name() -> str:
    if rng.random() < 0.6:
        return ko.name()
    return pick(SURNAMES) + pick(MODERN_GIVEN)


def ko_names(n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        name = ko_name()
        if name not in out:
            out.append(name)
    return out


# --- Korean addresses ------------------------------------------------------------------------------
PROVINCES = ["서울특별시", "부산광역시", "대구광역시", "인천광역시", "광주광역시", "대전광역시",
             "울산광역시", "세종특별자치시", "경기도", "강원특별자치도", "충청북도", "충청남도",
             "전라남도", "경상북도", "경상남도", "제주특별자치도", "서울", "경기"]
DISTRICTS = ["강남구", "서초구", "송파구", "마포구", "종로구", "중구", "해운대구", "수원시 영통구",
             "성남시 분당구", "고양시 일산동구", "용인시 수지구", "청주시 흥덕구", "전주시 완산구",
             "포항시 남구", "제주시", "춘천시", "양평군", "홍성군"]
ROADS = ["테헤란로", "강남대로", "세종대로", "올림픽로", "판교역로", "월드컵북로", "해운대해변로",
         "봉은사로", "도산대로", "반포대로", "중앙로", "동일로", "경수대로", "새문안로", "을지로",
         "선릉로", "영동대로", "양재대로", "광평로", "노형로"]
DONGS = ["역삼동", "삼성동", "서교동", "망원동", "우동", "정자동", "청담동", "신림동", "연희동",
         "대치동", "상도동", "봉천동", "구의동", "신사동", "효자동", "노형동"]
RI = ["양서면 도곡리", "홍북읍 신경리", "애월읍 고내리"]


def road_addr(prefix: str) -> tuple[str, str]:
    road = pick(ROADS)
    num = str(rng.randint(1, 999))
    if rng.random() < 0.2:
        num += f"-{rng.randint(1, 30)}"
    variants = [f"{road} {num}", f"{road}{rng.randint(1, 90)}길 {rng.randint(1, 60)}",
                f"{road} {rng.randint(1, 300)}번길 {rng.randint(1, 40)}"]
    core = pick(variants)
    if prefix == "full":
        addr = f"{pick(PROVINCES)} {pick(DISTRICTS)} {core}"
    elif prefix == "district":
        addr = f"{pick(DISTRICTS)} {core}"
    else:
        addr = core
    if rng.random() < 0.3:
        addr += pick([f", {rng.randint(2, 25)}층", f" {rng.randint(101, 120)}동 {rng.randint(101, 1504)}호",
                      f" ({pick(DONGS)})", f", {rng.randint(201, 999)}호"])
    return addr, core


def lot_addr(prefix: str) -> str:
    dong = pick(DONGS)
    lot = f"{rng.randint(1, 999)}-{rng.randint(1, 99)}" if rng.random() < 0.8 else f"{rng.randint(1, 999)}번지"
    if prefix == "full":
        return f"{pick(PROVINCES)} {pick(DISTRICTS)} {dong} {lot}"
    if prefix == "district":
        return f"{pick(DISTRICTS)} {dong} {lot}"
    if prefix == "ri":
        return f"{pick(['경기도 양평군', '충청남도 홍성군', '제주특별자치도 제주시'])} {pick(RI)} {rng.randint(1, 999)}"
    return f"{dong} {lot}"


def gen_addresses():
    digest_tpl = [
        "{a}에 있는 사무실로 이동해 회의에 참석했다.",
        "배송지 주소를 {a}(으)로 변경하는 화면을 열었다.",
        "지도 앱에서 {a}까지 가는 길을 검색했다.",
        "{a} 근처 카페에서 노트북으로 문서를 작성했다.",
        "택배 조회: 수령지 {a}, 도착 예정 오후 6시.",
        "The user typed the delivery address {a} into the checkout form.",
        "Opened Naver Map and searched for {a}.",
        "이력서의 주소 칸에 {a} 을 입력했다.",
        "거래처 방문 일정: {a}에서 14시 미팅.",
        "부동산 앱에서 {a} 매물 정보를 확인했다.",
    ]
    title_tpl = [
        "{a} - 네이버 지도",
        "{a} : 카카오맵 — Chrome",
        "배송지 변경 | {a} - 쿠팡",
        "Google Maps - {a}",
        "등기부등본 열람 ({a}) - 인터넷등기소",
    ]
    for i in range(44):
        kind = pick(["full", "full", "district", "none", "lot_full", "lot_district", "lot_none", "ri"])
        if kind.startswith("lot"):
            addr = lot_addr(kind[4:] or "full")
        elif kind == "ri":
            addr = lot_addr("ri")
        else:
            addr, _ = road_addr(kind)
        if kind == "none" and "길" not in addr and "-" not in addr and "층" not in addr and "호" not in addr:
            text = pick(["{a}에서 점심 약속이 있었다.", "{a} 앞에서 택시를 탔다.",
                         "오늘 {a} 근처 매장 방문."]).format(a=addr)
            pos("kr_address", "ko", "digest", text, ("ADDRESS", addr))
            continue
        shape = "title" if i % 3 == 0 else "digest"
        tpl = pick(title_tpl if shape == "title" else digest_tpl)
        text = tpl.format(a=addr).replace("(으)로", "로")
        lang = "en" if tpl.startswith(("The user", "Opened", "Google")) else "ko"
        pos("kr_address", lang, shape, text, ("ADDRESS", addr))
    for _ in range(12):  # Faker's own address formats (odd road suffixes, 지하, 읍/면/리, detail)
        addr = pick([ko.address(), ko.road_address(), ko.land_address(),
                     ko.road_address() + " " + ko.address_detail()])
        pos("kr_address", "ko", pick(["digest", "title"]),
            pick(["고객 주소 {a} 확인 완료.", "{a} - 네이버 지도", "주문서 배송지: {a}"]).format(a=addr),
            ("ADDRESS", addr))


# --- Korean names without honorifics -----------------------------------------------------------
def gen_roman_addresses():
    for _ in range(6):
        road = pick(["Teheran-ro", "Gangnam-daero", "Sejong-daero", "Olympic-ro", "Pangyoyeok-ro"])
        gu = pick(["Gangnam-gu", "Jongno-gu", "Mapo-gu", "Bundang-gu, Seongnam-si", "Haeundae-gu"])
        city = pick(["Seoul", "Busan", "Gyeonggi-do", ""])
        n = rng.randint(1, 500)
        addr = pick([f"{n} {road}, {gu}", f"{road} {n}, {gu}"]) + (f", {city}" if city else "")
        pos("kr_address", "en", pick(["digest", "title"]),
            pick(["Shipping address: {a}", "{a} - Google Maps", "The form had {a} as the office."]).format(a=addr),
            ("ADDRESS", addr))


def gen_names():
    roles = ["담당자", "담당", "작성자", "팀장", "대표", "PM", "요청자", "승인자", "검토자", "보낸 사람",
             "받는 사람", "발신자", "수신자", "예약자", "고객명", "성명", "이름", "리뷰어", "기안자", "문의자"]
    for _ in range(26):
        role = pick(roles)
        name = ko_name()
        sep = pick([": ", " : ", " ", ":", "  "])
        tpl = pick([
            "Jira 이슈 상세 화면 — {r}{s}{n}, 상태: 진행 중.",
            "{r}{s}{n} / 마감일 2025-04-30",
            "메일 화면: {r}{s}{n}, 제목 '3분기 정산 자료'.",
            "결재 문서를 열었다. {r}{s}{n}, 결재 대기.",
            "{r}{s}{n}가 남긴 코멘트를 확인했다.",
            "The ticket shows {r}{s}{n} as the owner.",
            "[공지] 주간 보고 ({r}{s}{n})",
            "상담 내역 — {r}{s}{n}, 문의 유형: 환불",
        ])
        text = tpl.format(r=role, s=sep, n=name)
        pos("kr_name_role", "en" if tpl.startswith("The") else "ko",
            "title" if tpl.startswith(("[공지]", "{r}")) else "digest", text, ("PERSON", name))
    for _ in range(14):
        names = ko_names(rng.randint(2, 4))
        label = pick(["참석", "참석자", "참여자", "팀원", "멤버", "참조", "Attendees", "구성원", "명단"])
        sep = pick([", ", ",", " · ", "/", ", "])
        tpl = pick(["회의록 - {l}: {ns}", "{l}: {ns} (총 {k}명)", "캘린더 일정 '스프린트 리뷰' {l}: {ns}.",
                    "Meeting notes — {l}: {ns}"])
        text = tpl.format(l=label, ns=sep.join(names), k=len(names))
        pos("kr_name_list", "ko", "digest", text, *[("PERSON", n) for n in names])
    for _ in range(6):  # unlabelled list followed by a verb
        names = ko_names(rng.randint(2, 3))
        text = pick(["{ns} 참석 확정.", "{ns}와 점심 식사 후 리뷰 진행.", "슬랙 채널에 {ns} 초대함."]).format(
            ns=", ".join(names))
        pos("kr_name_list", "ko", "digest", text, *[("PERSON", n) for n in names])
    for _ in range(10):  # a particle after the role word, English labels, query strings
        name = ko_name()
        tpl = pick(["담당자는 {n}입니다.", "Reviewed by {n}", "이번 건 작성자가 {n}이라고 적혀 있다.",
                    "name: {n}, dept: 개발", "Call with {n} at 4pm"])
        pos("kr_name_role", "en" if tpl[0].isascii() else "ko", "digest", tpl.format(n=name), ("PERSON", name))
    for _ in range(8):  # a name in a sentence: with/to particles, or the subject of a person's act
        name = ko_name()
        last = name[-1]
        batchim = (ord(last) - 0xAC00) % 28 != 0
        tpl = pick([("{n}" + ("과" if batchim else "와") + " 배포 일정을 논의했다.", "ko"),
                    ("{n}에게 회의록을 메일로 보냈다.", "ko"),
                    ("{n}" + ("이" if batchim else "가") + " PR을 승인했다.", "ko"),
                    ("오후에 {n}" + ("은" if batchim else "는") + " 휴가라서 리뷰가 밀렸다.", "ko")])
        pos("kr_name_sentence", tpl[1], "digest", tpl[0].format(n=name), ("PERSON", name))
    for _ in range(4):
        name = ko_name()
        enc = quote(name, safe="")
        pos("percent", "en", "digest", f"https://crm.example.com/contacts?name={enc}&page=2", ("PERSON", enc))
    for _ in range(22):
        name = ko_name()
        h, mnt = rng.randint(1, 12), rng.randint(0, 59)
        tpl = pick([
            ("[{n}] [오후 {h}:{m:02d}] 자료 공유드립니다", "digest"),
            ("[{n}] 오전 {h}:{m:02d} 네 확인했습니다", "digest"),
            ("2024년 5월 3일 오후 {h}:{m:02d}, {n} : 내일 회의 몇 시죠?", "digest"),
            ("{n}  오후 {h}:{m:02d}\n배포 끝났어요", "digest"),
            ("{n} - 카카오톡", "title"),
            ("카카오톡 - {n}", "title"),
            ("{n} | Slack DM — Slack", "title"),
            ("{n}와의 대화 - LINE", "title"),
            ("{n}: 회의실 잡아뒀어요", "digest"),
            ("[{h}:{m:02d}] {n}: PR 리뷰 부탁드려요", "digest"),
        ])
        text = tpl[0].format(n=name, h=h, m=mnt)
        if "와의" in text and name[-1] not in "아어오우이":
            text = text.replace(f"{name}와의", f"{name}과의")
        pos("kr_name_chat", "ko", tpl[1], text, ("PERSON", name))


# --- capability URLs -----------------------------------------------------------------------------
HOSTS = ["app.acmecorp.com", "accounts.example.io", "portal.mycompany.co.kr", "id.startup.dev",
         "auth.shop.example.com", "www.ticketly.com"]


def gen_capability_urls():
    makers = [
        lambda: f"https://{pick(HOSTS)}/reset-password/{token(32)}",
        lambda: f"https://{pick(HOSTS)}/password/reset?token={token(40, string.ascii_letters + string.digits + '-_')}",
        lambda: f"https://{pick(HOSTS)}/users/password/edit?reset_password_token={token(20)}",
        lambda: f"https://{pick(HOSTS)}/invite/{token(24)}",
        lambda: f"https://{pick(HOSTS)}/invitations/accept?invitation_token={token(22)}",
        lambda: f"https://{pick(HOSTS)}/join/{en.uuid4()}",
        lambda: f"https://{pick(HOSTS)}/auth/magic-link?token={token(36)}",
        lambda: f"https://{pick(HOSTS)}/verify-email?code={token(28)}&email_id=1234",
        lambda: (f"https://{pick(['acme-backups', 'prod-uploads', 'invoices-2024'])}"
                 f".s3.{pick(['us-east-1', 'ap-northeast-2'])}"
                 f".amazonaws.com/{pick(['reports', 'exports'])}/{rng.randint(1000, 9999)}.pdf"
                 f"?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                 f"&X-Amz-Credential=AKIA{token(16, UPPER_DIGITS)}"
                 f"%2F20240315%2Fus-east-1%2Fs3%2Faws4_request"
                 f"&X-Amz-Date=20240315T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
                 f"&X-Amz-Signature={hexs(64)}"),
        lambda: (f"https://storage.googleapis.com/{pick(['ml-datasets', 'team-share'])}/data.csv"
                 f"?X-Goog-Algorithm=GOOG4-RSA-SHA256"
                 f"&X-Goog-Credential=svc%40proj.iam.gserviceaccount.com&X-Goog-Expires=900"
                 f"&X-Goog-Signature={hexs(80)}"),
        lambda: (f"https://{pick(['contoso', 'fabrikamdata'])}.blob.core.windows.net"
                 f"/{pick(['backups', 'media'])}/file.zip"
                 f"?sv=2022-11-02&ss=b&srt=o&sp=r&se=2024-04-01T00:00:00Z&st=2024-03-01T00:00:00Z&spr=https"
                 f"&sig={quote(token(43) + '=', safe='')}"),
        lambda: f"https://docs.google.com/document/d/{token(44, URLSAFE)}/edit?usp=sharing",
        lambda: f"https://docs.google.com/spreadsheets/d/{token(44, URLSAFE)}/edit#gid=0",
        lambda: f"https://drive.google.com/file/d/{token(33)}/view?usp=sharing",
        lambda: f"https://www.dropbox.com/s/{token(15).lower()}/contract_final.pdf?dl=0",
        lambda: f"https://www.dropbox.com/scl/fi/{token(21).lower()}/deck.key?rlkey={token(25).lower()}&dl=0",
        lambda: f"https://www.notion.so/{pick(['acme', 'myteam'])}/Q3-Roadmap-{hexs(32)}",
        lambda: f"https://{pick(['acme', 'studio'])}.notion.site/Onboarding-{hexs(32)}?pvs=4",
        lambda: f"https://1drv.ms/w/s!{token(26)}",
        lambda: (f"https://join.slack.com/t/{pick(['acme-dev', 'kr-startups'])}"
                 f"/shared_invite/zt-{token(10).lower()}-{token(22)}"),
        lambda: f"https://discord.gg/{token(8)}",
        lambda: f"https://open.kakao.com/o/{pick(['g', 's'])}{token(7)}",
        lambda: f"https://www.figma.com/file/{token(22)}/Design-System?node-id=0%3A1",
    ]
    contexts = [
        ("Clicked the password reset link {u} from the email.", "en", "digest"),
        ("Copied {u} into the chat.", "en", "digest"),
        ("브라우저 주소창에 {u} 를 붙여넣었다.", "ko", "digest"),
        ("초대 링크 {u} 를 팀원에게 보냈다.", "ko", "digest"),
        ("{u}", "en", "title"),
        ("Opened {u} in a new tab", "en", "digest"),
        ("공유 링크: {u}", "ko", "digest"),
    ]
    for _ in range(2):
        for make in makers:
            url = make()
            tpl, lang, shape = pick(contexts)
            pos("capability_url", lang, shape, tpl.format(u=url), ("CAPABILITY_URL", url))


# --- meeting IDs and passcodes -----------------------------------------------------------------
def meeting_id() -> str:
    d = "".join(rng.choice(string.digits[1:]) + "".join(rng.choice(string.digits) for _ in range(10)))
    n = pick([10, 11, 9])
    d = d[:n]
    if n == 11:
        return pick([f"{d[:3]} {d[3:7]} {d[7:]}", d, f"{d[:3]}-{d[3:7]}-{d[7:]}"])
    if n == 10:
        return pick([f"{d[:3]} {d[3:6]} {d[6:]}", d])
    return f"{d[:3]} {d[3:6]} {d[6:]}"


def passcode() -> str:
    return pick([token(6), "".join(rng.choice(string.digits) for _ in range(6)), token(8),
                 "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(5)) + "1"])


def gen_meetings():
    tpls = [
        ("Zoom invite: Meeting ID: {i} Passcode: {p}", "en", "digest"),
        ("Meeting ID {i}, passcode {p}", "en", "digest"),
        ("Join Zoom Meeting — Meeting ID: {i} — Passcode: {p}", "en", "title"),
        ("Teams meeting: Meeting ID: {i} Passcode: {p}", "en", "digest"),
        ("Webex meeting number: {i} Password: {p}", "en", "digest"),
        ("회의 ID: {i} 암호: {p}", "ko", "digest"),
        ("줌 회의 ID {i} / 비밀번호 {p}", "ko", "digest"),
        ("화상회의 참가 — 회의 ID: {i}, 암호: {p}", "ko", "title"),
        ("미팅 ID: {i} 패스코드: {p}", "ko", "digest"),
        ("Zoom 회의 참가 - 회의 ID {i} 암호 {p}", "ko", "title"),
        ("The calendar event lists Zoom ID {i} and pwd {p}.", "en", "digest"),
        ("Conference ID: {i} PIN: {p}", "en", "digest"),
        ("Zoom meeting {i}, password {p}", "en", "digest"),
        ("ID: {i} Passcode: {p} (Zoom)", "en", "title"),
        ("줌 회의 아이디 {i} 비번 {p}", "ko", "digest"),
        ("Meeting ID is {i} and the passcode is {p}", "en", "digest"),
    ]
    for _ in range(3):
        for tpl, lang, shape in tpls:
            i, p = meeting_id(), passcode()
            pos("meeting_code", lang, shape, tpl.format(i=i, p=p), ("MEETING_CODE", i), ("MEETING_CODE", p))
    for _ in range(4):
        code = f"{''.join(rng.choice(string.ascii_lowercase) for _ in range(3))}-" \
               f"{''.join(rng.choice(string.ascii_lowercase) for _ in range(4))}-" \
               f"{''.join(rng.choice(string.ascii_lowercase) for _ in range(3))}"
        pos("meeting_code", "en", "digest", f"Google Meet code: {code}", ("MEETING_CODE", code))


# --- encoded spans --------------------------------------------------------------------------------
def b64(s: str, urlsafe: bool = False) -> str:
    raw = s.encode()
    return (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()


def gen_encoded():
    for _ in range(8):
        user, pw = en.user_name(), token(12)
        blob = b64(f"{user}:{pw}")
        tpl = pick(["curl -H 'Authorization: Basic {b}' https://api.internal/v1",
                    "basic auth header value {b} shown in DevTools",
                    "Proxy-Authorization: Basic {b}",
                    "헤더에 Basic {b} 가 들어가 있었다."])
        typ = "API_KEY" if "Authorization: Basic" in tpl else "SECRET"
        pos("base64", "ko" if "헤더" in tpl else "en", "digest", tpl.format(b=blob), (typ, blob))
    for _ in range(8):
        email = en.email() if rng.random() < 0.5 else ko.free_email()
        blob = b64(json.dumps({"user": email, "exp": rng.randint(1700000000, 1800000000)}), urlsafe=True).rstrip("=")
        tpl = pick(["Cookie: session={b}; theme=dark", "Set-Cookie: auth_state={b}; Path=/",
                    "쿠키 값 user_ctx={b} 를 확인했다."])
        # Under a Cookie header the whole value is a session secret; bare, it is the email inside.
        typ = "SECRET" if "Cookie:" in tpl else "EMAIL_ADDRESS"
        pos("base64", "ko" if "쿠키" in tpl else "en", "digest", tpl.format(b=blob), (typ, blob))
    for _ in range(8):
        kind = pick(["db", "email", "phone"])
        if kind == "db":
            inner = f"postgres://{en.user_name()}:{token(14)}@db-{rng.randint(1, 9)}.internal:5432/app"
            typ = "DB_URL"
        elif kind == "email":
            inner = en.email()
            typ = "EMAIL_ADDRESS"
        else:
            inner = f"010-{rng.randint(2000, 9999)}-{rng.randint(1000, 9999)}"
            typ = "PHONE_NUMBER"
        blob = b64(inner)
        key = pick(["DATABASE_URL", "ADMIN_EMAIL", "CONTACT", "owner", "dsn"])
        text = f"kubectl get secret app -o yaml\ndata:\n  {key}: {blob}\n  replicas: Mw=="
        pos("base64", "en", "digest", text, (typ, blob))
    for _ in range(12):
        email = en.email()
        enc = quote(email, safe="")
        tpl = pick(["https://app.example.com/login?next=%2Fsettings&email={e}",
                    "https://mail.example.org/unsubscribe?u={e}&list=weekly",
                    "redirect_uri=https%3A%2F%2Fportal.example.com%2Fcb%3Fuser%3D{e}",
                    "검색 기록: https://search.example.com/?q={e}"])
        text = tpl.format(e=enc)
        pos("percent", "ko" if tpl.startswith("검색") else "en", "digest", text, ("EMAIL_ADDRESS", enc))
    for _ in range(4):
        phone = f"010-{rng.randint(2000, 9999)}-{rng.randint(1000, 9999)}"
        enc = quote(f"연락처 {phone}", safe="")
        text = f"https://forms.example.com/submit?memo={enc}"
        pos("percent", "ko", "digest", text, ("PHONE_NUMBER", quote(phone, safe="")))


# --- values broken across lines --------------------------------------------------------------------
def luhn_card(prefix: str, length: int) -> str:
    digits = [int(c) for c in prefix]
    while len(digits) < length - 1:
        digits.append(rng.randint(0, 9))
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:
            d *= 2
            d = d - 9 if d > 9 else d
        total += d
    return "".join(map(str, digits)) + str((10 - total % 10) % 10)


def gen_broken():
    for _ in range(10):
        card = luhn_card(pick(["4", "51", "37", "6011"]), 16)
        groups = [card[i:i + 4] for i in range(0, 16, 4)]
        cut = rng.randint(1, 3)
        text = pick(["카드번호 입력:\n", "Card on file:\n", "결제 정보 "]) + \
            " ".join(groups[:cut]) + "\n" + " ".join(groups[cut:]) + pick([" 유효기간 12/27", " exp 08/26", ""])
        first, second = " ".join(groups[:cut]), " ".join(groups[cut:])
        value = text[text.index(first):text.index(second) + len(second)]
        pos("line_broken", pick(["en", "ko"]), "digest", text, ("CREDIT_CARD", value))
    for _ in range(10):
        key = pick([f"AKIA{token(16, string.ascii_uppercase + string.digits)}",
                    f"ghp_{token(36)}", f"sk-ant-api03-{token(40)}", f"xoxb-{rng.randint(10**11, 10**12)}-{token(24)}",
                    f"glpat-{token(20)}"])
        cut = rng.randint(6, len(key) - 4)
        text = pick(["export TOKEN=\n", "키 값: ", "The pasted key was "]) + key[:cut] + "\n" + key[cut:] + \
            pick([" (expires soon)", "\n다음 단계 진행", ""])
        value = key[:cut] + "\n" + key[cut:]
        pos("line_broken", "en", "digest", text, ("API_KEY", value))


# --- obfuscated emails, bare SSNs, AWS secrets, cut-off private keys --------------------------------
def gen_misc():
    forms = [
        lambda u, d, t: f"{u} at {d} dot {t}", lambda u, d, t: f"{u} [at] {d} [dot] {t}",
        lambda u, d, t: f"{u}(at){d}(dot){t}", lambda u, d, t: f"{u} AT {d} DOT {t}",
        lambda u, d, t: f"{u}[at]{d}.{t}", lambda u, d, t: f"{u} {{at}} {d} {{dot}} {t}",
        lambda u, d, t: f"{u} @ {d} dot {t}", lambda u, d, t: f"{u} (at) {d} (dot) {t}",
    ]
    for _ in range(16):
        user = pick([en.user_name(), en.first_name().lower() + "." + en.last_name().lower()])
        dom, tld = pick([("example", "com"), ("gmail", "com"), ("naver", "com"), ("acme", "io"),
                         ("uni", "ac.kr"), ("company", "co.kr")])
        obf = pick(forms)(user, dom, tld)
        text = pick(["Contact: {e}", "메일은 {e} 으로 주세요", "Reach me at {e} for details.",
                     "Profile bio says: email {e}"]).format(e=obf)
        pos("obfuscated_email", "ko" if "메일은" in text else "en", "digest", text, ("EMAIL_ADDRESS", obf))
    for _ in range(12):
        ssn = en.ssn().replace("-", "")
        text = pick(["SSN {s} on the W-2 form", "Social Security Number: {s}", "ssn:{s}",
                     "Employee SSN is {s}.", "HR form — SSN {s} — verified", "{s} (SSN)"]).format(s=ssn)
        pos("ssn_bare", "en", pick(["digest", "title"]), text, ("US_SSN", ssn))
    for _ in range(10):
        secret = token(40, string.ascii_letters + string.digits + "/+")
        akid = f"AKIA{token(16, string.ascii_uppercase + string.digits)}"
        tpl = pick(["{a}\n{s}", "credentials: {a} {s}", "AWS keys pasted in chat: {a} / {s}",
                    "access {a} secret {s}", "{s}"])
        text = tpl.format(a=akid, s=secret)
        ents = [("SECRET", secret)] + ([("API_KEY", akid)] if "{a}" in tpl else [])
        pos("aws_secret", "en", "digest", text, *ents)
    for _ in range(6):
        body = "\n".join(token(64, string.ascii_letters + string.digits + "+/") for _ in range(rng.randint(2, 5)))
        kind = pick(["RSA ", "OPENSSH ", "EC ", ""])
        block = f"-----BEGIN {kind}PRIVATE KEY-----\n{body}"
        after = pick(["Then the user opened Slack and replied to the thread.",
                      "이후 사용자는 터미널에서 git push 를 실행했다.",
                      "Next: ran pytest, 42 passed."])
        text = f"pasted into the editor:\n{block}\n{after}"
        pos("private_key_cut", "en", "digest", text, ("PRIVATE_KEY", block), keep=[after])


# --- the older types, in new phrasing (Faker values) -----------------------------------------------
def gen_basics():
    for _ in range(8):
        e = en.email()
        pos("email", "en", pick(["digest", "title"]), pick([
            "Inbox (3) - {e} - Gmail", "Replied to {e} about the invoice.", "From: {n} <{e}>"]).format(
            e=e, n=en.name()), ("EMAIL_ADDRESS", e))
    for _ in range(6):
        e = ko.free_email()
        pos("email", "ko", "digest", pick(["{e} 계정으로 로그인했다.", "받는 사람: {e}"]).format(e=e),
            ("EMAIL_ADDRESS", e))
    for _ in range(8):
        p = f"010-{rng.randint(2000, 9999)}-{rng.randint(1000, 9999)}" if rng.random() < 0.5 else ko.phone_number()
        tpl = pick(["연락처 {p} 로 문자 발송", "전화번호: {p}", "고객 휴대폰 {p} 확인"])
        pos("phone", "ko", "digest", tpl.format(p=p), ("PHONE_NUMBER", p))
    for _ in range(6):
        p = f"({pick(['212', '415', '646', '312', '617', '206', '503', '720'])}) 555-{rng.randint(1000, 9999)}"
        pos("phone", "en", "digest", f"Call back at {p} tomorrow.", ("PHONE_NUMBER", p))
    for _ in range(6):
        c = luhn_card(pick(["4", "51", "37"]), 16)
        c = " ".join(c[i:i + 4] for i in range(0, 16, 4)) if rng.random() < 0.5 else c
        pos("card", pick(["en", "ko"]), "digest", pick(["card {c} charged", "카드 {c} 결제 완료"]).format(c=c),
            ("CREDIT_CARD", c))
    for _ in range(6):
        s = en.ssn()
        pos("ssn", "en", "digest", f"Form field filled with {s}.", ("US_SSN", s))
    for _ in range(6):
        r = ko.ssn()
        pos("rrn", "ko", "digest", pick(["주민번호 {r} 입력", "신분 확인: {r}"]).format(r=r), ("KR_RRN", r))
    for _ in range(6):
        ip = en.ipv4_public()
        pos("ip", "en", "digest", f"ssh deploy@{ip} failed twice", ("IP_ADDRESS", ip))
    for _ in range(6):
        name = ko_name()
        h = pick(["님", " 님", "씨", " 씨", " 팀장님", " 대리"])
        pos("kr_name_honorific", "ko", "digest", f"{name}{h}이 보낸 파일을 열었다.", ("PERSON", name))
    for _ in range(6):
        user = en.user_name()
        pos("user_path", "en", "title", f"/home/{user}/projects/app/main.py - VS Code", ("USER_PATH", user))


# --- decoys -----------------------------------------------------------------------------------------
def gen_decoys():
    for _ in range(10):
        v = f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}"
        decoy("version", pick(["en", "ko"]), pick(["digest", "title"]), pick([
            "Upgraded node to v{v} and reran the build.", "버전 {v} 릴리스 노트를 읽었다.",
            "Release {v} — GitHub", "pip install requests=={v}"]).format(v=v))
    for _ in range(10):
        h = "".join(rng.choice("0123456789abcdef") for _ in range(pick([7, 12, 40, 64])))
        decoy("hash", "en", pick(["digest", "title"]), pick([
            "git show {h} in the terminal", "commit {h} - fix flaky test", "sha256: {h}",
            "https://github.com/psf/requests/commit/{h}"]).format(h=h))
    for _ in range(10):
        n = rng.randint(100000000, 999999999)
        decoy("order", pick(["en", "ko"]), "digest", pick([
            "Order #{n} shipped.", "주문번호 {n} 배송 시작", "Invoice INV-{n} paid",
            "Tracking number {n} updated", "티켓 {n} 처리 완료"]).format(n=n))
    for _ in range(8):
        p = rng.choice([3000, 5432, 8080, 8443, 6379, 27017, 9200])
        decoy("port", "en", "digest", pick([
            "server listening on localhost:{p}", "docker run -p {p}:{p} app", "포트 {p} 이미 사용 중"]).format(p=p))
    public = ["https://docs.python.org/3/library/base64.html", "https://github.com/pallets/flask/pull/5123",
              "https://stackoverflow.com/questions/12345678/how-to-reset-a-password-in-django",
              "https://docs.djangoproject.com/en/5.0/topics/auth/passwords/",
              "https://support.google.com/docs/answer/2494822", "https://www.dropbox.com/features",
              "https://www.notion.so/help/sharing-and-permissions", "https://aws.amazon.com/s3/pricing/",
              "https://acme-public.s3.amazonaws.com/logo.png", "https://zoom.us/pricing",
              "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Authorization",
              "https://github.com/org/repo/blob/9f8e7d6c5b4a39281706f5e4d3c2b1a098765432/README.md",
              "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42", "https://pypi.org/project/presidio-analyzer/2.2.355/",
              "https://en.wikipedia.org/wiki/Password_reset", "https://github.com/org/repo/releases/download/v1.2.3/app.tar.gz",
              "https://search.example.com/?q=hello%20world&lang=ko", "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/creating-a-personal-access-token",
              "https://learn.microsoft.com/en-us/azure/storage/common/storage-sas-overview",
              "https://slack.com/help/articles/201330256-Invite-new-members-to-your-workspace"]
    for u in public:
        decoy("public_url", "en", pick(["digest", "title"]), pick(["Read {u}", "{u}", "열람한 문서: {u}"]).format(u=u))
    korean = [
        "서로 3번 확인했다.", "운동 30분 하고 회의에 들어갔다.", "주로 2개의 탭을 오가며 작업했다.",
        "바로 10분 뒤 배포가 끝났다.", "새로 5개의 이슈가 생성되었다.", "별로 2건밖에 없었다.",
        "순서대로 1, 2, 3 단계를 진행했다.", "자동 저장 3회 실행", "이동 2-3분 소요", "활동 10건 기록",
        "담당자: 미정", "작성자: 관리자", "참석: 전원", "참석자: 개발팀, 기획팀", "대표 번호 1588-0000 안내문",
        "[공지] 오후 3:12 서버 점검", "이름 변경을 요청했다", "팀장 회의 준비", "검토자: 확인 필요",
        "사과, 배, 포도 구매 목록", "정리, 배포, 회고 순으로 진행", "고객님이 선생님께 문의했다",
        "강남역 근처 카페에서 작업", "테헤란로 스타트업 행사 후기", "서울 날씨 맑음, 최고 24도",
        "회의 ID를 아직 받지 못했다", "Zoom meeting notes - Confluence", "Passcode required to join",
        "meeting at 3 pm in room 402", "deployed at example.com today", "Lunch at Joe's, then code review",
        "SSN field left blank", "call 1-800 support line later", "암호화 설정 변경",
        "base64 encoded string SGVsbG8sIHdvcmxkIQ== decoded to a greeting", "ZXhhbXBsZSB0ZXh0IG9ubHk=",
        "1층 로비에서 2층 회의실로 이동", "3동 건물 A동 2층", "기본값으로 3 설정", "버전 2.3으로 업그레이드",
        "카카오톡 - 공지사항", "Slack | general", "이번 주 스프린트 리뷰 - Jira",
        "파일 이름: 보고서_최종.docx", "리뷰어: 없음", "받는 사람: 전체", "요청자 정보 없음",
        "총 4111 1111\n건 처리", "build 20240315\n1234 passed", "checksum 9f8e7d6c5b4a3928\n1706f5e4 ok",
        "서울특별시청 홈페이지", "강남구청 민원실", "경기도 교육청 공지", "도로명 주소 찾기 - 행정안전부",
        "역삼동 맛집 추천", "테헤란로 일대 교통 혼잡", "판교 테크노밸리 채용 박람회",
    ]
    for t in korean:
        lang = "ko" if any("가" <= c <= "힣" for c in t) else "en"
        decoy("common_words", lang, "title" if (" - " in t or " | " in t) else "digest", t)


# --- issue 25: forms real screens show that slipped through --------------------------------------
# A second generator with its own seeds, appended after the older records, so those stay as they were.
def gen_issue25():
    r = random.Random(SEED + 25)
    k = Faker("ko_KR")
    k.seed_instance(SEED + 25)
    e = Faker("en_US")
    e.seed_instance(SEED + 25)

    def tok(n, alphabet=string.ascii_letters + string.digits):
        return "".join(r.choice(alphabet) for _ in range(n))

    def strong_pw():
        while True:
            pw = tok(r.randint(9, 14), string.ascii_letters + string.digits + "!#%^*_")
            if any(c.isdigit() for c in pw) and any(c.isupper() for c in pw) and any(c.islower() for c in pw):
                return pw

    # A private key whose body follows the BEGIN line on the same line (text lifted off a screen).
    for _ in range(8):
        kind = r.choice(["OPENSSH ", "RSA ", "EC ", ""])
        body = " ".join(tok(64, string.ascii_letters + string.digits + "+/") for _ in range(r.randint(1, 4)))
        end = r.choice([f" -----END {kind}PRIVATE KEY-----", "", ""])
        block = f"-----BEGIN {kind}PRIVATE KEY----- {body}{end}"
        after = r.choice(["then ran ssh-add and pushed.", "이후 터미널에서 git push 를 실행했다.",
                          "Next the user closed the editor."])
        lead = r.choice(["id_ed25519 — vim: ", "The screen showed ", "cat ~/.ssh/id_rsa → ", ""])
        pos("private_key_inline", "en", "digest", f"{lead}{block} {after}", ("PRIVATE_KEY", block),
            keep=[after])
    # Passwords on command lines.
    cli = [
        ("mysql -u {u} -p{pw} -h db.internal billing", "{pw}"),
        ("mysql --user={u} --password={pw} orders", "{pw}"),
        ("PGPASSWORD={pw} psql -h 10.0.3.7 -U {u} analytics", "{pw}"),
        ("PGPASSWORD='{pw}' pg_dump -U {u} prod > prod.sql", "{pw}"),
        ("sshpass -p {pw} ssh {u}@build-01", "{pw}"),
        ("sshpass -p '{pw}' scp backup.tgz {u}@nas:/vol1", "{pw}"),
        ("mysqldump -u{u} -p{pw} --all-databases", "{pw}"),
        ("terminal: $ mysql -uroot -p{pw}", "{pw}"),
    ]
    for i in range(16):
        tpl, _ = cli[i % len(cli)]
        pw, u = strong_pw(), r.choice(["admin", "root", "deploy", e.user_name()])
        text = tpl.format(u=u, pw=pw)
        text = r.choice(["{t}", "xterm — {t}", "Ran `{t}` in the terminal.", "터미널에서 {t} 실행"]).format(t=text)
        pos("cli_password", "ko" if "터미널" in text else "en", "title" if "xterm" in text else "digest",
            text, ("SECRET", pw))
    # Korean names followed by an honorific or title, and at a sentence start with a particle.
    honorific = ["{n} 고객님", "{n}고객님", "{n} 팀장님", "{n}팀장님", "{n}님", "{n} 님", "{n} 과장님",
                 "{n} 부장님", "{n} 선생님", "{n}씨"]
    frames = ["{x}께 회신 메일을 보냈다.", "{x}, 요청하신 자료 첨부드립니다 - Gmail", "{x}의 문의 건을 처리했다.",
              "카카오톡 - {x}", "{x}과 1:1 미팅 일정을 잡았다.", "Slack DM with {x} about the release"]
    for i in range(20):
        n = k.name()
        x = r.choice(honorific).format(n=n)
        f = frames[i % len(frames)]
        text = f.format(x=x)
        pos("kr_name_honorific", "en" if text.startswith("Slack") else "ko",
            "title" if (" - " in text or "Slack" in text) else "digest", text, ("PERSON", n))
    def batchim(word):
        return (ord(word[-1]) - 0xAC00) % 28 != 0

    particles = [("이", "가", " 배포 스크립트를 수정했다."), ("이", "가", " PR을 승인했다."),
                 ("은", "는", " 회의에 늦게 참석했다."), ("은", "는", " 보고서 초안을 공유했다."),
                 ("이가", "가", " 슬랙에 질문을 올렸다."), ("도", "도", " 리뷰에 참여했다."),
                 ("에게", "에게", " 파일을 전달했다."), ("의", "의", " 코드 리뷰 코멘트를 반영했다.")]
    for i in range(16):
        n = k.name()
        closed, open_, rest = particles[i % len(particles)]
        lead = r.choice(["", "", "확인 완료. ", "- "]) if i % 3 else ""  # a sentence or bullet start
        text = f"{lead}{n}{closed if batchim(n) else open_}{rest}"
        pos("kr_name_particle", "ko", "digest", text, ("PERSON", n))
    pos("kr_name_particle", "ko", "digest", "박지훈이 서버 로그를 확인했다.", ("PERSON", "박지훈"))
    # Resident registration numbers without the hyphen, next to a label.
    for _ in range(10):
        birth = k.date_of_birth(minimum_age=20, maximum_age=70)
        gender = r.choice("1234")
        rrn = f"{birth:%y%m%d}{gender}{r.randint(0, 999999):06d}"
        text = r.choice(["주민등록번호 {r}", "주민번호: {r}", "주민등록번호:{r} 확인 완료", "RRN {r}",
                         "본인확인 — 주민번호 {r}", "주민등록번호({r})를 입력했다."]).format(r=rrn)
        pos("kr_rrn_bare", "ko", r.choice(["digest", "title"]), text, ("KR_RRN", rrn))
    # Google Meet codes in window titles.
    for _ in range(10):
        code = f"{tok(3, string.ascii_lowercase)}-{tok(4, string.ascii_lowercase)}-{tok(3, string.ascii_lowercase)}"
        text = r.choice(["Meet - {c} - Google Chrome", "Meet – {c} — Mozilla Firefox", "{c} - Google Meet",
                         "Meet: {c} | Chromium", "meet.google.com/{c} - Google Chrome",
                         "Google Meet ({c}) - 회의 중"]).format(c=code)
        if text.startswith("meet.google.com"):  # the address bar's text is a meeting URL
            pos("meet_code_title", "en", "title", text, ("MEETING_URL", f"meet.google.com/{code}"))
        else:
            pos("meet_code_title", "en", "title", text, ("MEETING_CODE", code))
    # Provider secrets in parentheses after "client secret".
    for _ in range(10):
        secret = r.choice([f"GOCSPX-{tok(28, URLSAFE)}", tok(40, URLSAFE), f"{tok(8)}~{tok(31, URLSAFE)}",
                           tok(32, string.hexdigits.lower()[:16])])
        text = r.choice(["OAuth client created, client secret ({s}) copied",
                         "Client ID 1234-app.apps.googleusercontent.com, client secret ({s})",
                         "client secret ({s}) — Google Cloud console", "Azure app: client secret ({s}) expires 2027",
                         "클라이언트 시크릿 client secret ({s}) 복사함"]).format(s=secret)
        pos("client_secret_paren", "ko" if "클라이언트" in text else "en",
            "title" if " — " in text else "digest", text, ("SECRET", secret))
    # A bare 9-digit SSN right after "SSN".
    for _ in range(10):
        ssn = e.ssn().replace("-", "")
        text = r.choice(["SSN {s}", "SSN{s}", "SSN: {s}", "SSN#{s}", "SSN - {s}", "applicant SSN {s} verified",
                         "W-9 form (SSN {s})"]).format(s=ssn)
        pos("ssn_after_label", "en", r.choice(["digest", "title"]), text, ("US_SSN", ssn))
    # Decoys of the same shapes: nothing here may change.
    for t in ["mysql -u root -p billing", "psql -h localhost -U postgres", "sshpass -p \"$PASS\" ssh build-01",
              "PGPASSWORD=$PGPASS psql -U app", "mysql -p --host=db", "sshpass -f ~/.pw ssh nas",
              "BEGIN PRIVATE KEY handling in the loader", "-----BEGIN CERTIFICATE----- section parsed ok",
              "고객님 문의 게시판", "팀장님 보고 자료 준비", "담당자님 확인 부탁드립니다", "이번 주 배포가 끝났다.",
              "이가 빠진 톱니바퀴 그림", "주민등록번호 입력란은 비워 두었다", "주민번호 뒷자리 마스킹 정책",
              "Meet - Google Chrome", "Google Meet - New meeting", "pre-commit-hook run", "set-user-pref flag",
              "client secret (rotated yesterday)", "client secret (see vault)", "SSN field left blank",
              "SSN verification service docs", "order 123456789 shipped", "build 202611251 passed",
              "ssh-keygen -t ed25519 -C work", "git log --since=2.weeks", "김치찌개 레시피 검색"]:
        lang = "ko" if any("가" <= c <= "힣" for c in t) else "en"
        records.append({"kind": "decoy", "lang": lang, "shape": "digest", "case": "decoy_issue25",
                        "decoy": "common_words", "text": t, "entities": []})


# --- issue 25, item 7 once more: every command-line form a terminal shows ------------------------
# Its own seed again, appended last, so every record above stays as it was.
def gen_issue25_cli():
    r = random.Random(SEED + 2507)
    e = Faker("en_US")
    e.seed_instance(SEED + 2507)

    def password():
        alphabet = string.ascii_letters + string.digits + "!#%^*_@+"
        while True:
            pw = r.choice(["".join(r.choice(alphabet) for _ in range(r.randint(8, 16))),
                           f"{e.word().capitalize()}{r.randint(10, 9999)}{r.choice('!#*')}"])
            if any(c.isdigit() for c in pw) and any(c.isalpha() for c in pw) \
                    and not pw.startswith("-"):
                return pw

    forms = [
        "mysql -u {u} -p{pw} -h db.internal billing",
        "mariadb -u{u} -p{pw} shop",
        "/usr/bin/mysqldump -u {u} -p'{pw}' --single-transaction app",
        "mysqladmin -u root -p{pw} status",
        "PGPASSWORD={pw} psql -h pg.internal -U {u} reports",
        "export PGPASSWORD='{pw}'",
        "MYSQL_PWD={pw} mysql -u {u} app",
        "sshpass -p {pw} ssh {u}@bastion",
        "sshpass -p'{pw}' rsync -av ./dist {u}@web-02:/srv",
        "mysql --user={u} --password={pw} orders",
        "mongosh --username {u} --password {pw} mongodb.internal/app",
        "pg_restore --db-password={pw} dump.sql",
        "curl -u {u}:{pw} https://ci.internal/api/json",
        "curl -s -u {u}:{pw} -X POST https://registry.internal/v2/",
        "redis-cli -h cache-01 -a {pw} ping",
        "docker login -u {u} -p {pw} registry.internal",
    ]
    frames = [("{t}", "en", "digest"), ("xterm — {t}", "en", "title"),
              ("Terminal - {t}", "en", "title"), ("Ran `{t}` in the terminal.", "en", "digest"),
              ("터미널에서 `{t}` 실행", "ko", "digest"), ("터미널에서 {t} 실행", "ko", "digest"),
              ("$ {t}", "en", "digest")]
    for i in range(2 * len(forms)):
        pw, u = password(), r.choice(["admin", "root", "deploy", e.user_name()])
        t, lang, shape = frames[i % len(frames)]
        text = t.format(t=forms[i % len(forms)].format(u=u, pw=pw))
        after = text[text.index(pw) + len(pw):].lstrip("'").strip()  # the command goes on
        pos("cli_password", lang, shape, text, ("SECRET", pw), keep=[after] if after else [])
    # The flag's neighbours that are not passwords: ports, prompts, files, references, stdin.
    ports = ["ssh -p 22 {u}@build-01", "ssh -p 2222 {u}@bastion",
             "scp -P 2222 backup.tgz {u}@nas:/vol1", "docker run -p 8080:80 nginx",
             "psql -h pg.internal -p 5432 -U {u} reports", "redis-cli -h cache-01 -p 6379 ping",
             "mysql -h db -P 3306 -u {u} -p", "npm run dev -- -p 3000",
             "python -m http.server -b 127.0.0.1 8000", "kubectl port-forward svc/api 8080:80"]
    words = ["mysql -u {u} -p", "mysql -u {u} -p -h db.internal billing",
             "mysql --password -u {u} orders", "mysqldump --password-file ~/.mysql.pw app",
             "pg_restore --password-file /run/secrets/db dump.sql",
             "sshpass -f ~/.sshpass ssh {u}@bastion", "sshpass -e ssh {u}@bastion",
             "PGPASSWORD=$PGPASS psql -U {u}", "MYSQL_PWD=\"$DB_PASSWORD\" mysql -u {u}",
             "curl -u $CI_USER:$CI_TOKEN https://ci.internal/api/json",
             "docker login -u {u} --password-stdin registry.internal",
             "redis-cli -a $REDIS_PASSWORD ping", "mysql -p<password> -u {u}",
             "zip -r site.zip public/", "ssh-keygen -t ed25519 -C {u}",
             "mysql --help | grep password"]
    for i, t in enumerate(ports + words):
        u = r.choice(["admin", "root", "deploy", e.user_name()])
        frame, lang, shape = frames[i % len(frames)]
        records.append({"kind": "decoy", "lang": lang, "shape": shape, "case": "decoy_issue25",
                        "decoy": "port" if t in ports else "common_words",
                        "text": frame.format(t=t.format(u=u)), "entities": []})

# --- passport numbers and card security codes after their labels ---------------------------------
# Travel bookings and checkout forms. Its own seed, appended last: every record above stays.
def gen_identity_numbers():
    r = random.Random(SEED + 2811)

    def passport():
        return r.choice([
            lambda: r.choice("MSROD") + "".join(r.choices(string.digits, k=8)),  # Korea
            lambda: r.choice("MS") + "".join(r.choices(string.digits, k=3)) + r.choice(string.ascii_uppercase)
            + "".join(r.choices(string.digits, k=4)),  # Korea since 2021
            lambda: "".join(r.choices(string.digits, k=9)),  # the US, the UK
            lambda: "".join(r.choices(string.ascii_uppercase, k=2)) + "".join(r.choices(string.digits, k=7)),
        ])()

    for _ in range(12):
        p = passport()
        text, lang = r.choice([
            ("Passport: {p} (expires 2031-05-01)", "en"), ("Passport No. {p} entered on the booking form", "en"),
            ("passport number is {p}", "en"), ("Traveler 1 — passport #{p} — Korean Air", "en"),
            ("여권번호: {p} 확인 완료", "ko"), ("여권 번호 {p} 입력", "ko"), ("탑승객 여권번호는 {p}입니다", "ko"),
        ])
        text = text.format(p=p)
        pos("passport_label", lang, "title" if " — " in text else "digest", text, ("PASSPORT", p))
    for _ in range(12):
        code = "".join(r.choices(string.digits, k=r.choice((3, 3, 4))))
        text, lang = r.choice([
            ("Card ending 4242, CVV {c}, expiry 09/27", "en"), ("CVC: {c} typed into the Stripe checkout", "en"),
            ("security code {c} on the back of the card", "en"), ("Checkout — CVV2 {c} — Amex", "en"),
            ("카드 보안코드 {c} 입력함", "ko"), ("CVC 번호: {c} 입력 후 결제", "ko"),
        ])
        text = text.format(c=code)
        pos("card_code_label", lang, "title" if " — " in text else "digest", text, ("CARD_CVV", code))
    for _ in range(12):
        y, m, d = r.randint(1950, 2006), r.randint(1, 12), r.randint(1, 28)
        date, lang = r.choice([
            (f"{y}-{m:02d}-{d:02d}", "en"), (f"{m:02d}/{d:02d}/{y}", "en"), (f"{y}.{m:02d}.{d:02d}", "ko"),
            (f"{y}년 {m}월 {d}일", "ko"),
        ])
        frames = {"en": ["DOB {d} on the insurance form", "Date of birth: {d}", "Patient — DOB: {d} — chart",
                         "born on {d}, per the HR record"],
                  "ko": ["생년월일: {d} 확인", "회원 생년월일 {d} 입력", "출생일 {d} (주민등록상)"]}
        text = r.choice(frames[lang]).format(d=date)
        pos("birth_date_label", lang, "title" if " — " in text else "digest", text, ("DATE_OF_BIRTH", date))
    for t in ["passport photo 2 attached", "Passport renewal opens in 2026", "passports: 3 scanned",
              "CVV field is required", "cvc-tests passed 123 tests", "security code review on 2026-11-01",
              "CVE-2024-12345 patched", "card code 12/28", "passport expires 2031-05-01",
              "여권 사진 2장 제출", "보안코드 입력란 비어 있음", "birthday party on 2026-12-01",
              "born in 1985", "DOB field left empty", "생일 축하 모임 2026.11.25", "release date 2026-11-25"]:
        lang = "ko" if any("가" <= c <= "힣" for c in t) else "en"
        records.append({"kind": "decoy", "lang": lang, "shape": "digest", "case": "decoy_identity_numbers",
                        "decoy": "common_words", "text": t, "entities": []})


def main() -> None:
    gen_addresses()
    gen_roman_addresses()
    gen_names()
    gen_capability_urls()
    gen_meetings()
    gen_encoded()
    gen_broken()
    gen_misc()
    gen_basics()
    gen_decoys()
    gen_issue25()
    gen_issue25_cli()
    gen_identity_numbers()
    with OUT.open("w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    positives = [r for r in records if r["kind"] == "positive"]
    print(f"wrote {len(records)} records ({len(positives)} positive, "
          f"{sum(len(r['entities']) for r in positives)} entities, {len(records) - len(positives)} decoys) to {OUT}")


if __name__ == "__main__":
    main()
