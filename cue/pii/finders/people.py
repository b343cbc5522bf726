"""Names of people: user names in file paths, Korean names before an honorific or title,
English names after a title (Mr, Dr, Prof…). Pure stdlib: patterns and checks that
cue.pii.finders.recognizers turns into SpanRecognizers."""
from __future__ import annotations

import re

# --- file paths that reveal a user name ------------------------------------------------

_NOT_USERS = {"shared", "public", "default", "default user", "all users", "defaultuser0",
              "guest", "user", "username", "you", "me", "name", "your-name", "yourname",
              "<user>", "$user", "%username%", "...", "*"}
# macOS and Linux user names are ASCII; a Windows one may hold spaces or Hangul when a
# separator follows it ("C:\Users\John Smith\…", "C:\Users\홍길동\…").
_ASCII_NAME = r"[A-Za-z0-9._@+\-]*[A-Za-z0-9_@+\-]"
USER_PATH_RE = (
    r"(?:(?<=file://)|(?<![\w.\-/~]))(?:/var|/export)?/(?:Users|home)/"
    rf"(?P<v>{_ASCII_NAME})"
    r"|(?<![\w])[A-Za-z]:(?:\\+|/)(?i:Users|Documents and Settings)(?:\\+|/)"
    rf"(?P<v2>[^\\/:*?\"<>|\r\n\[\]]+?(?=\\|/)|{_ASCII_NAME})"
)


def _is_user_name(m: re.Match) -> bool:
    name = m["v"] or m["v2"]
    return name.lower() not in _NOT_USERS and not name.startswith(("$", "%", "{", "<"))


# --- Korean names before an honorific or title ------------------------------------------

_SURNAMES = (
    "남궁|황보|제갈|선우|독고|사공|서문|"
    "김|이|박|최|정|강|조|윤|장|임|한|오|서|신|권|황|안|송|류|유|전|홍|고|문|양|손|배|백|허|"
    "남|심|노|하|곽|성|차|주|우|구|민|진|나|지|엄|채|원|천|방|공|현|함|변|염|여|추|도|소|석|"
    "선|설|마|길|연|위|표|명|기|반|라|왕|금|옥|육|인|맹|제|모|탁|국|어|은|편|용|예|경|봉|사|부|"
    "가|복|태|목|형|피|두|감|음|빈|동|온|호|범|좌|팽|승|간|상|갈|시|단|견|당"
)
# Honorifics and titles that follow a name, then an optional particle.
_TITLES = ("선생님|교수님|박사님|팀장님|과장님|부장님|차장님|대리님|사장님|대표님|이사님|실장님|"
           "본부장님|센터장님|매니저님|책임님|선임님|수석님|원장님|회장님|상무님|전무님|주임님|"
           "사원님|기자님|작가님|변호사님|의사님|간호사님|감독님|코치님|선수|고객님|회원님|"
           "환자분|학생|"
           "선생|교수|박사|팀장|과장|부장|차장|대리|사장|대표|이사|실장|매니저|책임|선임|수석")
_HONORIFIC = rf"(?:님|씨|{_TITLES})"
_HONORIFIC_TRIGGER = rf"{_HONORIFIC}|\s[군양]"
KR_NAME_RE = (
    rf"(?<![가-힣])(?P<v>(?:{_SURNAMES})[가-힣]{{1,2}})"
    rf"(?:{_HONORIFIC}|(?P<sp>\s)(?:{_HONORIFIC}|[군양](?![가-힣])))"
)
# Words that look like surname + syllables before an honorific but are not names.
# Roles and titles ("선생님", "변호사님", "여사님"): a name never starts with one.
_KR_ROLE_WORDS_TEXT = """
고객 선생 사장 부장 차장 원장 주인 하느 하나 선배 기사 도련 도령 이사 조교 박사 전무 소장 이장 반장
조장 국장 총장 위원 기자 강사 간호 구청 도지 변호 세무 노무 주임 사원 신부 수녀 장로 전도 고모 이모
사모 장모 장인 부모 조부 조상 선조 임금 공주 왕자 왕비 선녀 서방 방장 기장 경비 도우 마음 편집 연구
제작 부처 석사 명인 안내 상담 담임 지점 회장 교장 교감 실장 팀장 과장 대리 대표 감독 코치 선수 작가
의사 약사 한의 원님 부인 사위 며느 형수 제수 동서 시누 시어 어머 아버 예수 성모 여사 마담 어르 권사
도사 선사 공사 차관 장관 고문 부사 부회 주사 서기 부기 선장 경감 경정 경장 경위 경사 경찰 소방 소령
하사 이병 상병 상사 동료 사수 사부 사범 조원 부원 선임 나리 양반 사무 주무 부교
"""
_KR_ROLE_WORDS = set(_KR_ROLE_WORDS_TEXT.split())
# Everyday words ("오늘의 선생님", "이번에 팀장님").
_KR_COMMON_WORDS_TEXT = """
오늘 이번 이전 이후 지금 지난 우리 전체 정말 정도 하루 조금 모든 모두 최근 방금 원래 현재 한번
안녕 신입 기존 여러 이제 이미 이런 그런 저런 정리 이분 이쪽 오전 오후 주간 주말 전화 신규
공동 남은 유명 명예 서울 한국 부산 지역 전문 전임 전직 현직 현역 차기 신임 전담 담당 수고 고생 감사
"""
_KR_COMMON_WORDS = set(_KR_COMMON_WORDS_TEXT.split())
_COMPOUND_SURNAMES = {"남궁", "황보", "제갈", "선우", "독고", "사공", "서문"}
_PARTICLES = set("은는이가을를의에도와과로만")


def _is_korean_name(m: re.Match) -> bool:
    name = m["v"]
    if name[:2] in _KR_ROLE_WORDS or name in _KR_COMMON_WORDS:
        return False
    if m["sp"]:
        # With a space before the title, only a full name (surname + two syllables) that
        # is not an everyday word plus a particle.
        given = name[2:] if name[:2] in _COMPOUND_SURNAMES else name[1:]
        return len(given) == 2 and not (name[2] in _PARTICLES and name[:2] in _KR_COMMON_WORDS)
    return True


# English names after a title work without a spaCy model (a model, when present, adds more).
_EN_NAME = r"(?:[A-Z]'[A-Z][a-z]+|[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:-[A-Z][a-z]+)?)"
EN_TITLE_NAME_RE = (r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor)\.?\s+"
                    rf"(?P<v>{_EN_NAME}(?:\s+{_EN_NAME})?)")


