"""Issue 17's recognizers, one by one: what each catches and what it must leave alone."""
from __future__ import annotations

import base64

import pytest

from cue.pii import analyze, scrub


@pytest.mark.parametrize(("text", "expected"), [
    # Korean addresses: 도로명 and 지번, with and without province/city, particles attached.
    ("서울특별시 강남구 테헤란로 152에서 미팅", "[ADDRESS]에서 미팅"),
    ("테헤란로 152번길 7 사무실", "[ADDRESS] 사무실"),
    ("강남구 역삼동 737-1로 이사", "[ADDRESS]로 이사"),
    ("역삼동 737-1 근처", "[ADDRESS] 근처"),
    ("주소: 경기도 성남시 분당구 판교역로 235, 3층", "주소: [ADDRESS]"),
    ("집 주소는 경기 고양시 일산서구 주엽동 18-3 이에요", "집 주소는 [ADDRESS] 이에요"),
    ("을지로 644 근처 매장", "[ADDRESS] 근처 매장"),
    ("세종시 한누리대로 2130", "[ADDRESS]"),
    ("Office: 152 Teheran-ro, Gangnam-gu, Seoul 06236", "Office: [ADDRESS]"),
    ("737-1 Yeoksam-dong, Gangnam-gu", "[ADDRESS]"),
    # Korean names without an honorific, where the context makes them names.
    ("담당자: 김민수", "담당자: [PERSON]"),
    ("작성 : 강동원, 검토 : 윤아름", "작성 : [PERSON], 검토 : [PERSON]"),
    ("참석: 김민수, 이서연, 박지훈", "참석: [PERSON], [PERSON], [PERSON]"),
    ("오늘 회의: 김태희, 정우성, 한지민 참석", "오늘 회의: [PERSON], [PERSON], [PERSON] 참석"),
    ("[박보검] [오전 10:05] 안녕하세요", "[[PERSON]] [오전 10:05] 안녕하세요"),
    ("이수진: 내일 오전에 리뷰해요", "[PERSON]: 내일 오전에 리뷰해요"),
    ("송민호 - KakaoTalk", "[PERSON] - KakaoTalk"),
    ("김태희, 정우성 점심", "[PERSON], [PERSON] 점심"),
    # Faker's formats: odd road suffixes, 지하, a building name and unit after the number.
    ("광주광역시 광진구 역삼0로 604-38 (성호김이마을) 순옥배아파트 552호 확인", "[ADDRESS] 확인"),
    ("전라남도 고양시 테헤란1거리 지하991 상철하김아파트으로 이사", "[ADDRESS]으로 이사"),
    ("김서연과의 대화 - LINE", "[PERSON]과의 대화 - LINE"),
    ("담당자는 김민수입니다", "담당자는 [PERSON]입니다"),
    ("Reviewed by 박지훈", "Reviewed by [PERSON]"),
    ("To: 김민수; 이서연", "To: [PERSON]; [PERSON]"),
    ("오전에는 Slack에서 박지훈과 배포 일정을 논의했다", "오전에는 Slack에서 [PERSON]과 배포 일정을 논의했다"),
    ("이서연에게 메일을 보냈다", "[PERSON]에게 메일을 보냈다"),
    ("김민수가 PR을 승인했다", "[PERSON]가 PR을 승인했다"),
    ("박지훈은 오늘 휴가", "[PERSON]은 오늘 휴가"),
    ("https://x.com/profile?name=%ED%99%8D%EA%B8%B8%EB%8F%99&age=3", "https://x.com/profile?name=[PERSON]&age=3"),
    ("김민수 [오후 3:12] 안녕", "[PERSON] [오후 3:12] 안녕"),
    ("김민수 — 오늘 오후 3:12", "[PERSON] — 오늘 오후 3:12"),
    ("김민수/개발팀, 이서연 (PM)", "[PERSON]/개발팀, [PERSON] (PM)"),
    ("15:12\t김민수\t안녕하세요", "15:12\t[PERSON]\t안녕하세요"),
    # Capability URLs (whole URL), by parameter, path shape or share host.
    ("reset: https://id.example.com/reset-password/aB3dE5fG7hJ9kL1mN3pQ", "reset: [CAPABILITY_URL]"),
    ("https://app.example.com/password/reset?token=Zk9x2LmP4qRs8TuV1wXy3AbC now", "[CAPABILITY_URL] now"),
    ("https://id.example.com/invite/Zk9x2LmP4qRs8TuV1wXy3AbC.", "[CAPABILITY_URL]."),
    ("https://app.linear.app/invite/7f3a9c2e1b4d4e6f8a0b2c4d6e8f0a1b", "[CAPABILITY_URL]"),
    ("https://b.s3.amazonaws.com/a.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=0a1b2c3d4e5f",
     "[CAPABILITY_URL]"),
    ("https://r.s3.amazonaws.com/q3.xlsx?X-Amz-Expires=600&X-Amz-Signature=9b2c1e... into Slack",
     "[CAPABILITY_URL]... into Slack"),
    ("https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2024-02-01&sig=AbCdEf1234567890%3D",
     "[CAPABILITY_URL]"),
    ("https://docs.google.com/document/d/1aBcD3fGhIjKlMnOpQrStUvWxYz012345/edit?usp=sharing",
     "[CAPABILITY_URL]"),
    ("https://www.dropbox.com/scl/fi/abc123def456/deck.key?rlkey=xyz789abc&dl=0", "[CAPABILITY_URL]"),
    ("https://www.notion.so/acme/Q3-Roadmap-0123456789abcdef0123456789abcdef", "[CAPABILITY_URL]"),
    ("https://teams.example.com/invite?code=8f3KdLx92mQpZ", "[CAPABILITY_URL]"),
    ("https://discord.gg/RxKUF5JuHs", "[CAPABILITY_URL]"),
    ("https://zoom.us/rec/share/AbCdEf123456?startTime=1700000000000", "[CAPABILITY_URL]"),
    ("https://d1.cloudfront.net/i.jpg?Expires=1700000000&Signature=AbCdEfGh~IjKl&Key-Pair-Id=K2JCJMDEHXQW5F",
     "[CAPABILITY_URL]"),
    # Meeting IDs and passcodes outside a URL.
    ("Meeting ID: 812 3456 7890 Passcode: 4f9Kx2", "Meeting ID: [MEETING_CODE] Passcode: [MEETING_CODE]"),
    ("회의 ID: 812 3456 7890 암호: 123456", "회의 ID: [MEETING_CODE] 암호: [MEETING_CODE]"),
    ("Webex 액세스 코드 2634 123 4567", "Webex 액세스 코드 [MEETING_CODE]"),
    ("Google Meet code: abc-defg-hij", "Google Meet code: [MEETING_CODE]"),
    ("tap: +16465588656,,81234567890#,,,,*123456# US", "tap: [PHONE],,[MEETING_CODE]#,,,,*[MEETING_CODE]# US"),
    ("Zoom meeting 812-3456-7890, password 123456", "Zoom meeting [MEETING_CODE], password [MEETING_CODE]"),
    ("ID: 812 3456 7890 Passcode: 4f9Kx2 (Zoom)", "ID: [MEETING_CODE] Passcode: [MEETING_CODE] (Zoom)"),
    ("Webex Meeting number (access code): 2634 123 4567",
     "Webex Meeting number (access code): [MEETING_CODE]"),
    ("줌 회의 아이디 81234567890 비번 1234", "줌 회의 아이디 [MEETING_CODE] 비번 [MEETING_CODE]"),
    # Obfuscated emails.
    ("mail jane.doe at example dot com", "mail [EMAIL]"),
    ("kim.minsu[at]naver[dot]com 으로", "[EMAIL] 으로"),
    ("Reach me at craig.fuller at acme dot io for details.", "Reach me at [EMAIL] for details."),
    ("john AT company DOT co.kr", "[EMAIL]"),
    ("jane.doe at example.com", "[EMAIL]"),
    ("jane.doe@example dot com", "[EMAIL]"),
    ("메일: minsu(골뱅이)naver(점)com", "메일: [EMAIL]"),
    ("jane @ example . com", "[EMAIL]"),
    # A bare 9-digit SSN next to the word SSN.
    ("my SSN: 123456789", "my SSN: [SSN]"),
    ("social security no. 078051121", "social security no. [SSN]"),
    ("123456789 (SSN)", "[SSN] (SSN)"),
    ("SSN 123-45-6789", "SSN [SSN]"),
    # Encoded spans holding PII.
    ("k8s: DATABASE_URL: " + base64.b64encode(b"postgres://admin:s3cr3t@db.internal/app").decode(),
     "k8s: DATABASE_URL: [DB_URL]"),
    ("user_ctx=" + base64.urlsafe_b64encode(b'{"user": "jane@example.com"}').decode().rstrip("="),
     "user_ctx=[EMAIL]"),
    ("echo 'YWRtaW46UzNjcmV0UGFzcyE=' | base64 -d", "echo '[SECRET]' | base64 -d"),
    ("https://x.com/cb?email=kim.minsu%40naver.com", "https://x.com/cb?email=[EMAIL]"),
    ("r=https%3A%2F%2Fx.com%2F%3Fu%3Djane.doe%2540corp.io ok", "r=https%3A%2F%2Fx.com%2F%3Fu%3D[EMAIL] ok"),
    # Card, phone and RRN shapes Presidio's recognizers turn away.
    ("card 2286486247898804 charged", "card [CREDIT_CARD] charged"),
    ("card 4812533174719531686", "card [CREDIT_CARD]"),
    ("maestro card 501844466190", "maestro card [CREDIT_CARD]"),
    ("call 221.432.2419 today", "call [PHONE] today"),
    ("call +1-524-584-8359x882 today", "call [PHONE] today"),
    ("phone 2953136743", "phone [PHONE]"),
    ("주민번호 270022-2716603 입력", "주민번호 [KR_RRN] 입력"),
    ("작성자가 문하준이라고 적혀 있다", "작성자가 [PERSON]이라고 적혀 있다"),
    # Keys and card numbers broken by a line break.
    ("card 4111 1111\n1111 1111 ok", "card [CREDIT_CARD] ok"),
    ("card 4111-1111-\n1111-1111", "card [CREDIT_CARD]"),
    ("card:\n4111\n1111\n1111\n1111", "card:\n[CREDIT_CARD]"),
    ("카드번호\n4111 1111\n1111\n1111 끝", "카드번호\n[CREDIT_CARD] 끝"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0\n.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "jwt [API_KEY]"),
    ("search?q=%EC%97%B0%EB%9D%BD%EC%B2%98+010-1234-5678", "search?q=%EC%97%B0%EB%9D%BD%EC%B2%98+[PHONE]"),
    ("export T=\nghp_1a2B3c4D5e6F7g8H9i0J\nkLmNoPqRsTuVwXyZ12 done", "export T=\n[API_KEY] done"),
])
def test_issue_17_kinds_are_scrubbed(text, expected):
    assert scrub(text) == expected
    assert scrub(expected) == expected


@pytest.mark.parametrize("text", [
    # Korean words that look like roads, lots, districts or names.
    "서로 3번 확인했다.", "운동 30분 하고 회의", "주로 2개의 탭", "바로 10분 뒤",
    "순서대로 1, 2, 3 단계",
    "자동 저장 3회", "이동 2-3분 소요", "리팩터링 후 테스트 152개 통과", "강남역 2번 출구 앞",
    "1층 로비에서 2층 회의실로", "기본값으로 3 설정", "역시 서버로 3번 재시도",
    "서울 날씨 맑음, 최고 24도",
    "담당자: 미정", "작성자: 관리자", "참석: 전원", "참석자: 개발팀, 기획팀",
    "이름 변경을 요청했다",
    "팀장 회의 준비", "[공지] 오후 3:12 서버 점검", "김치찌개, 된장찌개, 부대찌개 주문",
    "사과, 배, 포도",
    "강남구청 민원실", "역삼동 맛집 추천", "Gangnam-gu office", "Route 66, Gangnam-gu",
    "대표 번호 1588-0000 안내",
    "서울시, 부산시, 대구시 순회", "가용성, 확장성, 안정성", "정상화, 안정화 작업", "참석 예정임",
    "에러 코드로 3-1 반환", "대표 이미지를 변경했다", "Translated with 한국어 subtitles",
    "from 서울역 to 부산역",
    "상대방이 요청했다", "사용자가 확인했다", "진행률이 공유됐다", "연구진이 공유했다",
    "고객사와 미팅", "개발팀과 회의", "대표님과 미팅", "변호사와 상담 약속",
    "세무사에게 메일을 보냈다", "회의록/개발팀", "사용자/기획팀",
    "서버와 통신 후 로그 공유", "진행률: 80%\n성공률: 3%", "조회수, 방문자 증가",
    "전문가, 진행자 섭외", "홍보팀, 기획팀 참석", "회의 결과: 승인",
    # Public URLs, including ones about resets, invites and signed URLs.
    "https://docs.python.org/3/library/base64.html",
    "https://stackoverflow.com/questions/12345678/how-to-reset-a-password-in-django",
    "https://docs.aws.amazon.com/AmazonS3/latest/userguide/ShareObjectPreSignedURL.html",
    "https://github.com/org/repo/blob/9f8e7d6c5b4a39281706f5e4d3c2b1a098765432/README.md",
    "https://github.com/org/repo/releases/download/v1.2.3/app.tar.gz",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42",
    "https://www.notion.so/help/sharing-and-permissions",
    "https://acme-public.s3.amazonaws.com/logo.png", "https://search.example.com/?q=hello%20world",
    "https://github.com/org/repo/issues?q=is%3Aopen+label%3Abug",
    "https://discord.gg/urllib3", "https://discord.com/invite/pytest-dev",
    "https://lf-aidata.atlassian.net/wiki/spaces/DL/pages/14091402/LF+AI+Day+-ONNX+Community",
    "https://github.com/conda-forge/miniforge/releases/latest/download/Miniforge3-MacOSX-arm64.sh",
    "https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp.jpg/2560px-Gfp-wisconsin-madison.jpg",
    # Meeting words with no code, passwords rules, "at" in sentences, 9-digit numbers.
    "Meeting ID will be shared later", "Passcode required to join", "csv a,,123456789012 ok",
    "Password must be at least 8 characters",
    "The meeting is at 3pm, room 12", "deployed at example.com today",
    "the process id 123456789 exited",
    "Order #123456789 shipped", "SSN field left blank", "https://example.com/search?code=python",
    "Meet jane at example.com", "epoch 1700000000000", "ns 1700000000123456789",
    "tracking 1Z999AA10123456784", "order 4000123412341234000", "ticket 1234567890",
    "주문번호 20240315-0042", "id 123456-1234567890", "https://calendly.com/jane-doe/30min",
    "Project ID: 12345",
    # Harmless base64 and line-wrapped numbers.
    "SGVsbG8sIHdvcmxkIQ== decoded to a greeting", "eyJhbGciOiJIUzI1NiJ9 is a JWT header",
    "build 20240315\n1234 passed",
    "checksum 9f8e7d6c5b4a3928\n1706f5e4 ok", "ports\n5432\n6379\n8080\n9200",
])
def test_issue_17_decoys_are_left_alone(text):
    assert scrub(text) == text


@pytest.mark.parametrize(("text", "expected"), [
    # a key complete on its line, then a line that opens with a word: nothing joined
    ("Slack: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx\nssh deploy@build-01 now",
     "Slack: [API_KEY]\nssh deploy@build-01 now"),
    ("Stripe sk_live_51H8xYzAbCdEfGhIjKlMnOpQr\nnext line", "Stripe [API_KEY]\nnext line"),
    ("token ghp_16C7e42F292c6912E7710c838347Ae178B4a\nthen we left", "token [API_KEY]\nthen we left"),
])
def test_a_complete_key_keeps_the_next_line(text, expected):
    assert scrub(text) == expected


def test_a_cut_off_private_key_keeps_the_text_after_it():
    text = ("pasted:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq2abcDEF123\n"
            "Then the user opened Slack and replied.")
    assert scrub(text) == "pasted:\n[PRIVATE_KEY]\nThen the user opened Slack and replied."


def test_percent_encoded_entity_offsets_cover_whole_escapes():
    text = "next=%2Fhome%3Femail%3Djane%40example.com&x=1"
    [entity] = analyze(text)
    assert text[entity.start:entity.end] == "jane%40example.com"
