import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': '액세스 허용',
  'consent.heading': '<app>{name}</app>에 액세스를 허용하시겠습니까?',
  'consent.receives':
    '<app>{name}</app>에서 dauth 계정 사용을 요청합니다. 이 앱은 {items}을(를) 받게 됩니다.',
  'consent.item.userId': '사용자 ID',
  'consent.item.walletAddress': '지갑 주소',
  'consent.item.email': '이메일 주소',
  'consent.item.name': '이름',
  'consent.item.tokens': '이 앱에서 사용자를 대신해 작업하기 위한 토큰',
  'consent.redirect': '그런 다음 <origin>{address}</origin>(으)로 돌아갑니다.',
  'consent.deny': '거부',
  'consent.allow': '허용',
  'consent.signedInAs': '<email>{account}</email>(으)로 로그인되어 있습니다.',
  'consent.useAnotherAccount': '다른 계정 사용',
  'consent.policy.intro':
    '나중에 PIN으로 지갑 접근 권한을 부여하면 <app>{name}</app>은(는) 다음을 할 수 있습니다:',
  'consent.policy.tokenPerDay':
    '{until, date, medium}까지 지갑에서 하루 최대 {amount, number, ::.##################} {symbol} 사용',
  'consent.policy.tokenPerDayBaseUnits':
    '{until, date, medium}까지 지갑에서 하루 최대 {amount, number}단위의 {token} 토큰 사용',
  'consent.policy.etherPerDay':
    '{until, date, medium}까지 지갑에서 하루 최대 {perDay, number, ::.##################} ETH 전송',
  'consent.policy.etherPerDayPerCall':
    '{until, date, medium}까지 지갑에서 하루 최대 {perDay, number, ::.##################} ETH 전송(1회 최대 {perCall, number, ::.##################} ETH)',
  'consent.policy.calls': '{until, date, medium}까지 지갑에서 {functions} 호출',
  'consent.policy.contractFunctions': '{contract}의 함수 {count, plural, other {#개}}',
  'consent.policy.withinPolicy': '{until, date, medium}까지 앱 정책 범위 내에서 지갑으로 작업',
  'consent.policy.revocable': '언제든지 취소할 수 있으며, 앱의 액세스를 취소하면 종료됩니다.',
} satisfies Translation<typeof en>;
