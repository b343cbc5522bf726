"""Korean addresses, Korean names written without an honorific, RRN shapes.

Pure regex + small word lists; no Presidio import here (cue.pii.engine wraps the finders
in `FunctionRecognizer`s). The finders are narrow on purpose: an address needs a district
in front of it or an address-shaped tail; a bare name needs a context that makes it a
name (a role word, a list of people, a chat header, a messenger window title, a with/to
particle or a subject particle before something only people do), and its given name must
be made of name syllables and not be an everyday word.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from cue.pii.finders.lazy import lazy_re

# --- addresses ---------------------------------------------------------------------------

_PROVINCE = (r"(?:서울|부산|대구|인천|광주|대전|울산|세종)(?:특별자치시|특별시|광역시|시)?"
             r"|(?:경기|강원|충청북|충청남|충북|충남|전라북|전라남|전북|전남|경상북|경상남|경북|경남|제주)"
             r"(?:특별자치도|도)?")
# 시/군/구 (and 읍/면 under them): "강남구", "수원시 영통구", "홍성군 홍북읍".
_DISTRICT = r"[가-힣]{1,6}(?:시|군|구|읍|면)"
_ROAD = r"[가-힣][가-힣0-9]{0,12}?(?:대로|로|길|거리|가)(?:\s?\d{1,4}(?:번?길|가))?"
_AREA = r"[가-힣][가-힣0-9]{0,10}?(?:동|리|가|읍|면|마을)"
_BLDG = r"(?:지하\s?)?\d{1,5}(?:-\d{1,4})?"
_LOT = r"(?:산\s?)?\d{1,5}(?:-\d{1,5})?(?:번지)?"
# After the number: unit/floor, the neighbourhood in brackets, a building name, its
# building letter/number and unit ("(역삼동) 래미안아파트 B동 1203호").
_BUILDING = r"(?:아파트|빌라|연립|타운|타워|빌딩|맨션|오피스텔|하우스|캐슬|팰리스|프라자|플라자|센터|마을|스퀘어|시티)"
_DETAIL = (r"(?P<detail>(?:,?\s?(?:지하\s?)?\d{1,4}(?:동|층|호)(?:\s?\d{1,5}호)?)?"
           r"(?:\s?\([가-힣0-9][가-힣0-9 ,.\-]{0,24}\))?"
           rf"(?:,?\s[가-힣A-Za-z0-9]{{1,14}}?{_BUILDING})?"
           r"(?:,?\s(?:[가나다라마바]|[A-Z]|\d{1,4})동)?(?:,?\s?\d{1,5}(?:호|층))?)")
# Particles and place words that may follow an address; any other Hangul right after the
# number ("3개", "10분", "2번") means the number was a count, not a building number.
_ADDRESS_TAIL = (r"(?:에서|에게|으로|로|에|의|은|는|이|가|을|를|와|과|도|까지|부터|근처|인근|쪽|"
                 r"앞|뒤|옆|소재|방면|일대|번지)")
_PLACE_TAIL = lazy_re(r"\s?(?:에서|에|근처|인근|쪽|앞|소재|방면|일대)")

KR_ADDRESS_RE = lazy_re(
    rf"(?<![가-힣0-9A-Za-z])(?:(?P<prov>{_PROVINCE})\s)?"
    rf"(?P<dist>(?:{_DISTRICT}\s){{0,3}})"
    rf"(?:(?P<road>{_ROAD})\s?(?P<bldg>{_BLDG})|(?P<area>{_AREA})\s(?P<lot>{_LOT})){_DETAIL}"
    rf"(?![0-9A-Za-z])(?=[^가-힣]|{_ADDRESS_TAIL}|$)"
)


# Words ending in 시/군/구/읍/면 that are not districts.
_NOT_DISTRICTS_TEXT = """
역시 다시 즉시 잠시 혹시 당시 동시 표시 감시 무시 지시 게시 제시 개시 실시 명시 항시 일시 수시 임시
평시 도시 전시 응시 착시 근시 난시 암시 멸시 중시 경시 재시 호시 일구 연구 친구 도구 요구 입구 출구
가구 기구 창구 항구 탐구 추구 강구 전구 야구 농구 족구 배구 축구 당구 완구 문구 공구 용구 비상구
해군 공군 육군 아군 적군 대군 장군 국군 반군 구면 전면 측면 이면 정면 표면 화면 지면 내면 외면 반면
면면 장면 국면 방면 일면 양면 단면 평면 곡면 수면 체면 대면 직면 당면 서면 라면 냉면 하면 보면 이면
"""
_NOT_DISTRICTS = set(_NOT_DISTRICTS_TEXT.split())
# Words ending in 로/길/가/동/리 that are not road or neighbourhood names.
_NOT_PLACES_TEXT = """
서로 새로 별로 바로 주로 따로 홀로 절로 저절로 그대로 스스로 실제로 정말로 진짜로 대체로 최초로 이대로
멋대로 제대로 마음대로 맘대로 함부로 억지로 앞으로 뒤로 위로 아래로 옆으로 밖으로 안으로 이로 그로 날로
순서대로 계획대로 예정대로 원래대로 생각대로 요청대로 말대로 규칙대로 차례로 대로 길 가 활동 자동 이동
운동 행동 변동 작동 구동 연동 가동 출동 감동 노동 충동 진동 파동 폭동 협동 공동 유동 수동 능동 피동
반동 기동 발동 부동 경동 난동 준동 소동 선동 책동 약동 율동 미동 흔들 무리 관리 처리 정리 수리 논리
원리 거리 요리 유리 우리 이리 저리 그리 소리 머리 자리 다리 사리 의리 진리 조리 심리 승리 대리 총리
경리 추리 물리 분리 마리 가리 고리 꼬리 도리 보리 부리 비리 오리 주리 허리 비가 평가 추가 증가 참가
단가 정가 원가 시가 대가 특가 고가 저가 물가 인가 허가 휴가 부가 국가 작가 전문가 누가 어디가
"""
_NOT_PLACES = set(_NOT_PLACES_TEXT.split())
_ADDRESS_CONTEXT = lazy_re(
    r"(?i)주소|위치|소재지|배송지|배송|도로명|지번|자택|사무실|본사|지사|매장|지점|건물|"
    r"오시는 ?길|찾아오시는|address|located|office at|ship to")


def _valid_districts(dist: str) -> list[str]:
    return [w for w in dist.split() if w not in _NOT_DISTRICTS and len(w) >= 2]


def find_kr_addresses(text: str) -> Iterator[tuple[int, int]]:
    for m in KR_ADDRESS_RE.finditer(text):
        start = m.start()
        words = m["dist"].split()
        # Drop leading words that are not districts ("다시 강남대로 152"): the span starts
        # at the first real district, or at the road/area itself.
        lead = 0
        while lead < len(words) and words[lead] in _NOT_DISTRICTS:
            lead += 1
        districts = _valid_districts(" ".join(words[lead:]))
        if lead and not m["prov"]:
            start = m.start("dist") + m["dist"].index(words[lead]) if lead < len(words) else (
                m.start("road") if m["road"] else m.start("area"))
        prov = m["prov"] or ""
        strong = bool(districts) or len(prov) >= 3
        place = m["road"] or m["area"]
        if place in _NOT_PLACES or place.endswith("으로"):
            continue
        if not strong and not _weak_address_ok(m, text):
            continue
        yield start, m.end()


def _weak_address_ok(m: re.Match, text: str) -> bool:
    """An address with no district in front: it needs an address-shaped part or context."""
    tail = text[m.end():m.end() + 4]
    if m["detail"] or _PLACE_TAIL.match(tail) or _ADDRESS_CONTEXT.search(
            text, max(0, m.start() - 24), m.start()):
        return True
    if m["road"]:
        # "코드로 3-1" reads like a road and a building number; without a district, a
        # 번길, a detail, a place particle or an address word it is not taken as one.
        return re.search(r"\d\s?번?길$", m["road"]) is not None
    return "-" in m["lot"] or m["lot"].endswith("번지")


# Romanized: "152 Teheran-ro, Gangnam-gu, Seoul", "Teheran-ro 152, Gangnam-gu",
# "737-1 Yeoksam-dong, Gangnam-gu". A road or neighbourhood with a number, plus a district.
_ROMAN_PLACE = r"[A-Z][a-z]+(?:-?[a-z]+)*\d*"
_ROMAN_DISTRICT = rf"{_ROMAN_PLACE}-(?:gu|si|gun|eup|myeon)"
_ROMAN_CITY = (r"Seoul|Busan|Incheon|Daegu|Daejeon|Gwangju|Ulsan|Sejong|Jeju|"
               rf"{_ROMAN_PLACE}-do|Gyeonggi(?:-do)?|Gangwon(?:-do)?")
_ROMAN_NUM = r"\d{1,5}(?:-\d{1,4})?"
_ROMAN_STREET = rf"{_ROMAN_PLACE}-(?:daero|ro|gil|dong|ri|ga)(?:\s\d{{1,4}}(?:beon)?-gil)?"
KR_ROMAN_ADDRESS_RE = lazy_re(
    rf"\b(?:{_ROMAN_NUM},?\s{_ROMAN_STREET}|{_ROMAN_STREET},?\s{_ROMAN_NUM})"
    rf"(?:,?\s(?:{_ROMAN_PLACE}-dong|{_ROMAN_DISTRICT}))+(?:,?\s(?:{_ROMAN_CITY}))?"
    r"(?:,?\s(?:South\s)?Korea)?(?:\s\d{5})?\b")
ROMAN_ADDRESS_TRIGGER = r"-(?:gu|si|gun|dong)\b"


def find_kr_roman_addresses(text: str) -> Iterator[tuple[int, int]]:
    for m in KR_ROMAN_ADDRESS_RE.finditer(text):
        yield m.span()


# --- resident registration numbers Presidio's date check turns away ----------------------------

# Presidio's KR RRN pattern insists on a real month and day; a dashed 6+7 run with a gender
# digit 1-8 is an RRN shape even when its date is not (typos, generated test data, masked
# dates), and nothing else is written that way.
KR_RRN_SHAPE_RE = lazy_re(r"(?<![\d\-])\d{2}[01]\d[0-3]\d-[1-8]\d{6}(?![\d\-])")
RRN_TRIGGER = r"\d{6}-\d{7}|\d{13}"
# Without the hyphen, 13 digits are an RRN only right after its label and with a real
# month and day: "주민등록번호 9001011234567", "주민번호: …", "RRN …", "주민등록번호(…)".
_RRN_LABEL = r"(?:주민\s?등록\s?번호|주민\s?번호|(?i:RRN|resident\s+registration(?:\s+(?:no\.?|number))?))"
KR_RRN_BARE_RE = lazy_re(
    rf"{_RRN_LABEL}\s*(?:는|은|이|가)?\s*[:：=(#\-]?\s*"
    r"(?P<v>\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[1-8]\d{6})(?!\d)")


def find_rrn_shapes(text: str) -> Iterator[tuple[int, int]]:
    for m in KR_RRN_SHAPE_RE.finditer(text):
        yield m.span()
    for m in KR_RRN_BARE_RE.finditer(text):
        yield m.span("v")


# --- names without an honorific ------------------------------------------------------------

# Two-syllable surnames, then one character class of the single ones (a class is far
# faster for `re` than a 150-way alternation tried at every position).
_SURNAME = ("남궁|황보|제갈|선우|독고|사공|서문|"
            "[김이박최정강조윤장임한오서신권황안송류유전홍고문양손배백허남심노하곽성차주우구민진나지엄채원천방공현함변염여추도소석선설마길연위표명기반라왕금옥육인맹제모탁국어은편용예경봉사부가복태목형피두감음빈동온호범좌팽승간상갈시단견당]")
# Syllables Korean given names are made of (common ones; a name must use two of them).
_GIVEN = set(
    "가각간갑강개거건걸겸경계고곤공관광교구국군권규균근금기길나난남내녀노다단달담대덕도돈동두득"
    "라란람랑래량려련렬령례로록룡루류륜률름리린림마만말매맹면명모목몽무문미민밀바박반방배백범벽별"
    "병보복봉부분비빈빛사산삼상새샘서석선설섭성세소솔송수숙순술슬승시식신실심아안애야양어언엽여연"
    "열염영예오옥온완왕요용우욱운웅원월위유육윤율융은이익인일자작잔장재전절정제조종주준중"
    "지직진찬참창채천철청초총추춘충치탁태택판평표풍필하학한해행향허헌혁현협형혜호홍화환활황회효후"
    "훈휘희흠늘봄결든솜누니울검탄슬빈랑람온래"
)
_COMPOUND_SURNAMES = {"남궁", "황보", "제갈", "선우", "독고", "사공", "서문"}
_NAME = rf"(?:{_SURNAME})[가-힣]{{2}}"
_PARTICLE = (r"(?:에게서|에게|께서|께|한테|이랑|랑|하고|입니다|이에요|예요|이며|이고|이라고|라고|이라는|라는|"
             r"이가|이는|이를|이의|이와|이도|와|과|은|는|이|가|을|를|의|도|만|님|씨)")
_NAME_END = rf"(?=(?:님|씨)?{_PARTICLE}?(?![가-힣]))"
_SEP = r"\s*[,，、·/&;]\s*|\s+(?:및|와|과|and)\s+|\s+"
# Words before a name that make it one: roles, authorship, attendance, messaging.
_ROLE = (
    r"담당자|담당|팀장|부장|과장|차장|대리|사원|주임|대표이사|대표|이사|실장|본부장|센터장|"
    r"매니저|책임|선임|수석|PM|PL|PO|작성자|작성|참석자|참석|참석 인원|참여자|참여|발표자|발표|"
    r"보고자|보고|검토|승인|결재|기안|확인자|요청자|요청인|신청자|승인자|검토자|결재자|기안자|리뷰어|수신자|수신|발신자|발신|참조|"
    r"보낸 ?사람|받는 ?사람|보낸이|받는이|고객명|성명|이름|성함|예약자|주문자|수령인|수령자|"
    r"보호자|상담원|문의자|작업자|등록자|수정자|배정|멤버|팀원|구성원|명단|인원|진행자|사회자|"
    r"회의|미팅|모임|면담|통화|인터뷰|회식|연사|강사|저자|지은이|글쓴이|편집자|기자|코치|멘토|멘티|"
    r"(?i:assignee|reporter|author|owner|reviewer|from|to|cc|attendees?|participants?|members?|"
    r"by|with|name|full_?name|display_?name|nick_?name|user_?name|user|sender|recipient|customer|"
    r"contact|host|speaker)"
)
_ROLE_NAMES_RE = lazy_re(
    rf"(?<![가-힣A-Za-z])(?:{_ROLE})(?:은|는|이|가)?\s*[:：=\-]?\s*(?P<first>{_NAME}){_NAME_END}")
_LIST_ITEM_RE = lazy_re(rf"{_PARTICLE}?(?:{_SEP})(?P<name>{_NAME}){_NAME_END}")
# Chat headers and messenger window titles.
_TIME = r"(?:오전|오후)\s?\d{1,2}:\d{2}|\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?"
_APPS = (r"카카오톡|KakaoTalk|Kakao|Slack|슬랙|Teams|팀즈|Microsoft Teams|LINE|라인|Discord|"
         r"디스코드|Telegram|텔레그램|WhatsApp|Messenger|메신저|잔디|JANDI|네이트온|Signal|DM")
# A line opening with "김민수: …" is a chat line only for a likely name (see find_kr_names).
_LINE_START_NAME = lazy_re(rf"(?m)^\s*(?P<n>{_NAME})\s*[:：]\s")
_CHAT_RES = [
    lazy_re(rf"\[(?P<n>{_NAME})\]\s*\[?(?:{_TIME})"),                         # [김민수] [오후 3:12]
    lazy_re(rf"(?:{_TIME})\]?\s*,?\s*(?P<n>{_NAME})\s*[:：]"),                 # 오후 3:12, 김민수 :
    lazy_re(rf"(?m)^\s*(?P<n>{_NAME})\s*[,—–\-]?\s*(?:오늘|어제)?\s*\[?(?:{_TIME})(?![0-9])"),  # 김민수 오후 3:12
    lazy_re(rf"(?m)^\[?(?:{_TIME})\]?\t+(?P<n>{_NAME})\t"),                      # LINE: 15:12<TAB>김민수<TAB>
    lazy_re(rf"(?m)^\s*\[?(?:{_TIME})\]?\s*(?P<n>{_NAME})\s*[:：]"),           # [15:12] 김민수:
    _LINE_START_NAME,                                                           # 김민수: 네 확인
    lazy_re(rf"(?<![가-힣])(?P<n>{_NAME})\s*[-–—|·]\s*(?:{_APPS})\b"),         # 김민수 - 카카오톡
    lazy_re(rf"(?:{_APPS})\s*[-–—|:·]\s*(?P<n>{_NAME})(?![가-힣])"),           # Slack | 김민수
    # Slack | #ops — 김민수
    lazy_re(rf"(?:{_APPS})\s*[-–—|:·]\s*#[\w\-]{{1,40}}\s*[-–—|:·]\s*(?P<n>{_NAME})(?![가-힣])"),
    lazy_re(rf"(?<![가-힣])(?P<n>{_NAME})(?:와|과|님과)의\s?(?:대화|채팅|1:1)"),  # 김민수와의 대화
]
# Three-syllable words that start with a surname and use name syllables but are not names.
_NOT_NAMES_TEXT = """
사용자 관리자 대표자 이용자 진행중 검토중 미확인 정규직 계약직 부회장 이사장 이메일 전원이 신청서 보고서
기안서 회의록 안내문 공지사항 하루종일 이번주 지난주 다음주 이번달 지난달 다음달 오늘은 내일은 어제는
전체 미정 공석 본인 각자 없음 모두 우리팀 우리가 전원 고객사 고객님 상담사 지원자 후보자 당사자
참가자 참석자 수신자 발신자 작성자 담당자 신청자 요청자 승인자 검토자 결재자 기안자 예약자 주문자
작업자 등록자 수정자 방문자 문의자 개발자 기획자 운영자 보호자 대리인 대표님 팀장님 부장님 과장님
이사님 선생님 교수님 사장님 회장님 원장님 실장님 강사님 매니저 이상무 이상없 이상함 정상임 정상적
확인중 처리중 대기중 작업중 회의중 휴가중 출장중 외근중 재택중 연차중 반차중 부재중 통화중
조회수 방문자 구독자 시청자 신청서 지원서 계약서 견적서 주문서 명세서 기획서 제안서 안내서 설명서 지원자
후보자 당선자 수상자 부상자 확진자 감염자 전문가 진행자 사회자 발표자 동반자 소유자 가입자 탈퇴자 구매자
판매자 배송지 수령자 결제자 책임자 소비자 생산자 노동자 근로자 연구자 학습자 교육자 정치인 연예인 외국인
한국인 미국인 일본인 중국인 대학원 고등학 중학교 초등학 유치원 도서관 박물관 미술관 영화관 체육관 경찰서
소방서 우체국 시청역 강남역 서울역 여의도 이태원 정말로 진짜로 이상한 이번에 지난번 안녕하 감사합 수고했
최종본 수정본 원본은 초안을 정리본 요약본 공유함 확인함 완료함 전달함 요청함 보류함 진행함 시작함 종료함
상대방 연구진 경영진 임원진 운영진 제작진 의료진 심사위 심사원 감사원 조사원 상담원 안내원 연구원 공무원
이미지 동영상 한국어 기사문 사진첩 영상물 공지문 사용법 이용법 신청법 가입법 주의점 유의점 장단점 문제점
변호사 세무사 노무사 회계사 법무사 감정사 설계사 간호사 한의사 수의사 조리사 미용사 기술자 정비사 중개사
"""
_NOT_NAMES = set(_NOT_NAMES_TEXT.split())


# Two-syllable words that, with a particle, look like surname + given name ("변경은").
_COMMON_2_TEXT = """
변경 정보 기본 이름 사용 수정 신규 전체 진행 완료 보류 취소 승인 반려 검토 확인 요청 문의 정리 정상 오류
장애 배포 개발 기획 운영 영업 인사 재무 회계 법무 홍보 총무 고객 공지 안내 일정 회의 보고 주간 월간 연간
상세 내용 구성 설정 기능 성능 조건 결과 원인 문제 해결 방법 사항 자료 문서 서버 전달 전송 공유 저장 삭제
추가 생성 등록 이슈 작업 업무 유지 지원 고정 연락 번호 주소 위치 장소 시간 날짜 기간 금액 비용 가격 수량
상태 단계 결정 방향 계획 목표 전략 분석 조사 연구 시험 실험 평가 교육 강의 발표 토론 정책 규정 기준 절차
양식 서식 신청 접수 처리 대기 종료 시작 마감 연기 변동 조정 협의 합의 계약 구매 판매 주문 배송 결제 환불
반품 교환 재고 입고 출고 이번 지난 다음 오늘 내일 어제 모든 우리 전원 인원 명단 참석 부재 출장 휴가 외근
재택 연차 반차 대표 이사 부장 과장 차장 대리 사원 주임 팀장 실장 본부 센터 매니 책임 선임 수석 상무 전무
"""
_COMMON_2 = set(_COMMON_2_TEXT.split())
_PARTICLE_CHARS = set("은는이가을를의도만와과")


def _is_name(name: str) -> bool:
    if name in _NOT_NAMES or name[:3] in _NOT_NAMES:
        return False
    if name[:2] in _COMMON_2 and name[2] in _PARTICLE_CHARS:
        return False
    if name[:2] in _COMPOUND_SURNAMES:  # 황보민, 남궁민수: one or two given syllables
        given = name[2:]
        if 1 <= len(given) <= 2 and all(ch in _GIVEN for ch in given):
            return True
    given = name[1:]
    return len(given) == 2 and all(ch in _GIVEN for ch in given)


def _name_span(text: str, start: int) -> tuple[int, int]:
    """The name at `start`: 3 syllables, or 4 with a two-syllable surname."""
    if text[start:start + 2] in _COMPOUND_SURNAMES and (
            start + 4 <= len(text) and "가" <= text[start + 3] <= "힣"):
        return start, start + 4
    return start, start + 3


def find_kr_names(text: str) -> Iterator[tuple[int, int]]:
    """Korean names that a role word, a list of names or a chat header makes names."""
    seen = set()
    for m in _ROLE_NAMES_RE.finditer(text):
        pos = m.start("first")
        span = _name_span(text, pos)
        if not _is_name(text[span[0]:span[1]]):
            continue
        yield span
        seen.add(span)
        # More names in the same list: "참석: 김민수, 이서연, 박지훈".
        end = span[1]
        while (item := _LIST_ITEM_RE.match(text, end)) is not None:
            nspan = _name_span(text, item.start("name"))
            if not _is_name(text[nspan[0]:nspan[1]]):
                break
            yield nspan
            seen.add(nspan)
            end = nspan[1]
    for regex in _CHAT_RES:
        weak = regex is _LINE_START_NAME
        for m in regex.finditer(text):
            span = _name_span(text, m.start("n"))
            name = text[span[0]:span[1]]
            if weak and (name[-1] in _NOT_NAME_ENDINGS or not _COMMON_SURNAME.match(name)):
                continue  # "진행률: 80%", "성공률: 3%" at a line start are labels
            if span not in seen and _is_name(name):
                seen.add(span)
                yield span
    yield from _bare_name_lists(text, seen)
    yield from _sentence_names(text, seen)
    for m in itertools.chain(_WITH_NAME_RE.finditer(text), _SUBJECT_NAME_RE.finditer(text),
                             _NAME_TEAM_RE.finditer(text)):
        span = _name_span(text, m.start("n"))
        name = text[span[0]:span[1]]
        if span not in seen and _COMMON_SURNAME.match(name) and _is_name(name) \
                and name[-1] not in _NOT_NAME_ENDINGS:
            seen.add(span)
            yield span


_BARE_LIST_RE = lazy_re(
    rf"(?<![가-힣])(?P<a>{_NAME})(?:님|씨)?\s*[,，、·]\s*(?P<b>{_NAME})(?:님|씨)?{_NAME_END}")


# Last syllables of places, teams and companies: "서울시, 부산시" is not a list of people.
_NOT_NAME_ENDINGS = set("시구군도동읍면리팀부실과사점장관청국소단회화성률율량")


# With no label in front, a list of names must use common surnames (about 85% of people).
_COMMON_SURNAME = lazy_re("[김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유"
                          "남심노하곽성차주우구민진나지엄]")


# "박지훈과 배포 일정을 논의했다", "이서연에게 메일을 보냈다": a name with a "with/to"
# particle and, a few words on, something people do together.
_WITH_NAME_RE = lazy_re(
    rf"(?<![가-힣])(?P<n>{_NAME})(?:과|와|이랑|랑|하고|에게|한테|께|님과|님께)\s"
    r"[^\n]{0,24}?(?:논의|통화|회의|미팅|대화|메시지|메일|연락|상의|면담|협의|이야기|얘기|채팅|DM|"
    r"리뷰|공유|전달|보냈|보냄|받았|만났|만남|점심|저녁|식사|커피|약속|인사|질문|답장|문의|요청)")


# "김민수가 PR을 승인했다": a name as the subject of something only people do.
_SUBJECT_NAME_RE = lazy_re(
    rf"(?<![가-힣])(?P<n>{_NAME})(?:이|가|은|는|께서|님이|님은|님께서)\s"
    r"[^\n]{0,24}?(?:승인|리뷰|작성했|작성함|요청했|요청함|보냈|보냄|남겼|남김|공유했|공유함|말했|말함|답장|"
    r"참석했|참석함|올렸|올림|댓글|커밋했|머지했|병합했|전화했|전화함|연락했|연락함|물어|질문했|제안했|"
    r"확인했|확인해|결재|서명|퇴근|출근|휴가|입사|퇴사|합류)")


# "김민수/개발팀", "이서연 (PM)", "박지훈 | 디자인파트": a name with its team or role after it.
_NAME_TEAM_RE = lazy_re(
    rf"(?<![가-힣])(?P<n>{_NAME})\s*(?:[/|·]\s*[가-힣A-Za-z]{{1,10}}"
    r"(?:팀|부|실|본부|센터|그룹|파트|셀|랩|사업부|TF)(?![가-힣])"
    r"|\(\s*(?:PM|PO|PL|FE|BE|QA|팀장|리더|매니저|대표|개발자|디자이너|인턴|[가-힣]{1,8}팀)\s*\))")


# "박지훈이 서버 로그를 확인했다.": a name opening a sentence (text start, after . ! ? or a
# line's bullet) with a subject/topic/possessive particle and a space. Common surnames only.
_SENTENCE_NAME_RE = lazy_re(
    rf"(?:^|(?<=[.!?。])\s+|(?m:^)\s*(?:[-*•·]|\d+[.)])\s+)(?P<n>{_NAME})"
    r"(?:이가|이는|이도|이의|에게|께서|이|가|은|는|도|의)\s")


def _sentence_names(text: str, seen: set) -> Iterator[tuple[int, int]]:
    for m in _SENTENCE_NAME_RE.finditer(text):
        span = _name_span(text, m.start("n"))
        name = text[span[0]:span[1]]
        # the particle must follow the name itself (a 4-syllable word is no 3-syllable name)
        if span[1] != m.start("n") + len(m["n"]) or span in seen:
            continue
        if _COMMON_SURNAME.match(name) and _is_name(name) and name[-1] not in _NOT_NAME_ENDINGS:
            seen.add(span)
            yield span


def _bare_name_lists(text: str, seen: set) -> Iterator[tuple[int, int]]:
    """Two or more names in a comma list with no label ("김민수, 이서연, 박지훈 참석")."""
    for m in _BARE_LIST_RE.finditer(text):
        a = _name_span(text, m.start("a"))
        b = _name_span(text, m.start("b"))
        first, second = text[a[0]:a[1]], text[b[0]:b[1]]
        # "안정성, 확장성" and "서울시, 부산시" end like places or qualities; one such
        # ending in a pair of names ("김태희, 정우성") is still a pair of names.
        if not (_is_name(first) and _is_name(second)) or not (
                _COMMON_SURNAME.match(first) and _COMMON_SURNAME.match(second)) or (
                first[-1] in _NOT_NAME_ENDINGS and second[-1] in _NOT_NAME_ENDINGS):
            continue
        for span in (a, b):
            if span not in seen:
                seen.add(span)
                yield span
        end = b[1]
        while (item := _LIST_ITEM_RE.match(text, end)) is not None and "," in text[end:item.start("name")]:
            nspan = _name_span(text, item.start("name"))
            if not _is_name(text[nspan[0]:nspan[1]]):
                break
            if nspan not in seen:
                seen.add(nspan)
                yield nspan
            end = nspan[1]


# Both Korean finders only look at lines holding Hangul.
HANGUL_TRIGGER = r"[가-힣]"
