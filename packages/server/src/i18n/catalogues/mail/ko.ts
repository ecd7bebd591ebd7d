import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': '일시: {at, date, utc}',
  'mail.network': '네트워크: {network}',
  'mail.lastNetwork': '마지막 시도의 네트워크: {network}',
  'mail.device': '기기: {device}',
  'mail.unknown': '알 수 없음',

  'mail.code.subject': 'dauth 인증 코드',
  'mail.code.code': 'dauth 인증 코드는 {code}입니다.',
  'mail.code.pinRecover':
    '{minutes, plural, other {#분}} 안에 이 코드로 지갑 PIN을 복구하세요(지갑에 새 소유자 키가 설정됩니다).',
  'mail.code.notYou': '요청하지 않으셨다면 이 메일을 무시하고 비밀번호를 변경하세요.',

  'mail.address.subjectSignup': 'dauth 이메일 주소를 확인해 주세요',
  'mail.address.subjectResend': 'dauth 이메일 인증 코드',
  'mail.address.intro':
    '이 이메일 주소가 dauth에서 사용할 본인의 주소인지 확인해 주세요. 아래 링크를 열고 페이지의 버튼을 누르세요',
  'mail.address.code': '또는 가입한 곳에서 다음 코드를 입력하세요: {code}',
  'mail.address.validity':
    '링크와 코드 모두 한 번만, {hours, plural, other {#시간}} 동안 사용할 수 있습니다.',
  'mail.address.notYou': 'dauth 계정을 만든 적이 없다면 이 메일을 무시하세요.',

  'mail.reset.subject': 'dauth 비밀번호 재설정',
  'mail.reset.code': 'dauth 비밀번호 재설정 코드는 {code}입니다.',
  'mail.reset.enter': '{minutes, plural, other {#분}} 안에 재설정 양식에 입력하거나 다음 링크를 여세요:',
  'mail.reset.notYou': '요청하지 않으셨다면 이 메일을 무시하세요. 비밀번호는 그대로 유지됩니다.',

  'mail.guessing.subject': '누군가 dauth 계정의 비밀번호를 추측하려 하고 있습니다',
  'mail.guessing.intro':
    '최근 몇 분 동안 dauth 계정에 로그인 실패가 많이 발생했으며, 여러 곳에서 시도되었을 수 있습니다. 이 시도가 멈출 때까지 로그인하려면 비밀번호와 함께 다음 코드가 필요합니다:',
  'mail.guessing.code': '로그인 코드는 {code}입니다.',
  'mail.guessing.validity':
    '이 코드는 {minutes, plural, other {#분}} 동안 유효합니다. 로그인 페이지에서 비밀번호와 함께 입력하세요.',
  'mail.guessing.notYou': '본인이 아니더라도 걱정하지 마세요. 이제 비밀번호만으로는 계정을 열 수 없습니다.',
  'mail.guessing.weak': '비밀번호가 약하거나 다른 곳에서도 사용 중이라면 로그인한 뒤 변경하세요.',

  'mail.security.passkeyAdded.subject': 'dauth 계정에 패스키가 추가되었습니다',
  'mail.security.passkeyAdded.body': 'dauth 계정에 패스키가 추가되었습니다(자격 증명 {credential}…).',
  'mail.security.passkeyRemoved.subject': 'dauth 계정에서 패스키가 삭제되었습니다',
  'mail.security.passkeyRemoved.body': 'dauth 계정에서 패스키가 삭제되었습니다(자격 증명 {credential}…).',
  'mail.security.identityLinked.subject': 'dauth 계정에 로그인 ID가 연결되었습니다',
  'mail.security.identityLinked.body':
    '{provider} 계정이 dauth 계정에 연결되었습니다. 이제 이 계정으로 dauth에 로그인할 수 있습니다.',
  'mail.security.identityUnlinked.subject': 'dauth 계정에서 로그인 ID 연결이 해제되었습니다',
  'mail.security.identityUnlinked.body': 'dauth 계정에서 연결된 ID가 삭제되었습니다.',
  'mail.security.guestUpgraded.subject': 'dauth 게스트 계정이 정식 계정으로 전환되었습니다',
  'mail.security.guestUpgraded.body':
    '게스트 계정이 정식 계정으로 전환되었습니다. 이제 기기 시크릿으로는 로그인할 수 없습니다.',
  'mail.security.passwordChanged.subject': 'dauth 비밀번호가 변경되었습니다',
  'mail.security.passwordChanged.body':
    'dauth 계정의 비밀번호가 변경되었습니다. 다른 모든 세션은 로그아웃되었습니다.',
  'mail.security.passwordReset.subject': 'dauth 비밀번호가 재설정되었습니다',
  'mail.security.passwordReset.body':
    'dauth 계정의 비밀번호가 이메일을 통해 재설정되었습니다. 모든 세션이 로그아웃되었습니다.',
  'mail.security.totpEnabled.subject': 'dauth 계정에 인증 앱이 추가되었습니다',
  'mail.security.totpEnabled.body': 'dauth 계정에서 인증 앱(TOTP)을 사용하는 2단계 로그인이 켜졌습니다.',
  'mail.security.totpRemoved.subject': 'dauth 계정에서 인증 앱이 삭제되었습니다',
  'mail.security.totpRemoved.body': 'dauth 계정에서 인증 앱(TOTP)을 사용하는 2단계 로그인이 꺼졌습니다.',
  'mail.security.sessionKeyGranted.subject': '앱에 dauth 지갑의 세션 키가 발급되었습니다',
  'mail.security.sessionKeyGranted.body':
    '앱 {app}에 세션 키가 발급되었습니다. 이제 이 앱은 정책 범위 안에서 지갑을 사용할 수 있습니다.',
  'mail.security.waysInRemoved.subject':
    'dauth 이메일 주소가 확인되었습니다: 이전 로그인 방법이 삭제되었습니다',
  'mail.security.waysInRemoved.body':
    '이 이메일 주소가 dauth 계정에서 처음으로 확인되었습니다. 이 확인 전에 추가된 모든 로그인 방법이 삭제되었고, 계정의 모든 세션, 앱 토큰, 세션 키가 종료되었습니다. 이전에 이 주소를 사용한 사람이 접근 권한을 유지하지 못하도록 하기 위해서입니다.',
  'mail.security.waysInRemoved.list': '삭제된 항목:',
  'mail.security.waysInRemoved.nothing': '세션 외에는 삭제할 항목이 없었습니다.',
  'mail.security.removed.passkey': '패스키(자격 증명 {credential}…, {added, date, utc}에 추가됨)',
  'mail.security.removed.identity': '연결된 {provider} ID({added, date, utc}에 추가됨)',
  'mail.security.removed.namedIdentity': '연결된 {provider} ID "{name}"({added, date, utc}에 추가됨)',
  'mail.security.removed.guestSecret': '게스트 기기 시크릿',
  'mail.security.removed.totp': '인증 앱(TOTP)과 복구 코드',
  'mail.security.wasYou': '본인이 한 일이라면 아무것도 하지 않으셔도 됩니다.',
  'mail.security.notYou':
    '본인이 아니라면 이 링크를 열고 확인하세요. 모든 곳에서 로그아웃되고, 모든 세션 키가 종료되며, 추가된 패스키나 ID가 취소되고, 이메일로 새 비밀번호를 설정하라는 안내를 받게 됩니다.',
  'mail.security.linkValidity': '이 링크는 한 번만, {days, plural, other {#일}} 동안 사용할 수 있습니다.',

  'mail.invite.subject': 'dauth의 {org}에 초대되었습니다',
  'mail.invite.body':
    'dauth의 조직 "{org}"에 {role, select, admin {관리자로} developer {개발자로} viewer {뷰어로} other {{role}(으)로}} 참여하도록 초대되었습니다.',
  'mail.invite.accept': '초대를 수락하세요(이 이메일 주소로 로그인한 상태에서):',
  'mail.invite.token': '또는 이 초대 토큰을 콘솔이나 `dauth org accept`에 붙여 넣으세요:',
  'mail.invite.expires': '초대는 {expires, date, utc}에 만료되며 한 번만 사용할 수 있습니다.',
  'mail.invite.notYou': '예상하지 못한 초대라면 이 메일을 무시하세요.',
} satisfies Translation<typeof en>;
