import { canonicalIp } from '../../core/fraud/client-ip';
import { disposableDomain, emailIdentity } from '../../core/fraud/email-identity';
import { type FraudSettings, NO_SIGNALS, fraudReasons } from '../../core/fraud/fraud-rules';

describe('emailIdentity', () => {
  it.each([
    ['Ann.Smith@Gmail.com', 'annsmith@gmail.com'],
    ['a.n.n.smith+promo@googlemail.com', 'annsmith@gmail.com'],
    ['  ann@example.com ', 'ann@example.com'],
    ['ann+shop+2@example.com', 'ann@example.com'],
    ['ann.smith@example.com', 'ann.smith@example.com'],
    ['ann.smith@mail.gmail.com', 'ann.smith@mail.gmail.com'],
    ['+tag@example.com', '+tag@example.com'],
    ['not-an-email', 'not-an-email'],
  ])('%s is %s', (email, identity) => {
    expect(emailIdentity(email)).toBe(identity);
  });
});

describe('disposableDomain', () => {
  it.each([
    ['x@mailinator.com', 'mailinator.com'],
    ['X@YOPMAIL.COM', 'yopmail.com'],
    ['x@inbox.mailinator.com', 'mailinator.com'],
    ['x@example.com', null],
    ['x@gmail.com', null],
  ])('%s → %s', (email, domain) => {
    expect(disposableDomain(email)).toBe(domain);
  });
});

describe('canonicalIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    [' 2001:DB8::1 ', '2001:db8::1'],
    ['0.0.0.0', null],
    ['::', null],
    ['999.0.0.1', null],
    ['', null],
    [null, null],
  ])('%s → %s', (value, ip) => {
    expect(canonicalIp(value)).toBe(ip);
  });
});

describe('fraudReasons', () => {
  const allOn: FraudSettings = {
    fraud_self_referral: true,
    fraud_velocity: true,
    fraud_disposable_email: true,
    fraud_max_per_advocate_hour: 10,
    fraud_max_per_ip_day: 5,
    fraud_ip_window_days: 7,
  };
  const order = { email: 'buyer@example.com', customer_id: null, visitor_id: null, ip: '192.0.2.1' };

  it('finds nothing on a clean order', () => {
    expect(fraudReasons(allOn, order, { ...NO_SIGNALS, advocate_email: 'ann@example.com', advocate_last_hour: 9, ip_last_day: 4 })).toEqual([]);
  });

  it('flags the limit reached: 10 earlier conversions in the hour, 5 from the IP in the day', () => {
    const reasons = fraudReasons(allOn, order, { ...NO_SIGNALS, advocate_last_hour: 10, ip_last_day: 5 });
    expect(reasons).toEqual([
      { code: 'velocity', detail: 'more than 10 conversions for this advocate within an hour' },
      { code: 'velocity', detail: 'more than 5 conversions from this IP address within a day' },
    ]);
  });

  it('does not count an IP the order does not carry', () => {
    expect(fraudReasons(allOn, { ...order, ip: null }, { ...NO_SIGNALS, ip_last_day: 50 })).toEqual([]);
  });

  it('reports each self-referral match and every rule that fires, in a fixed order', () => {
    const reasons = fraudReasons(
      allOn,
      { ...order, email: 'Ann+x@mailinator.com' },
      { advocate_email: 'ann@mailinator.com', same_customer: true, same_visitor: true, same_ip: true, advocate_last_hour: 10, ip_last_day: 0 },
    );
    expect(reasons.map((reason) => reason.code)).toEqual(['self_referral', 'self_referral', 'self_referral', 'self_referral', 'velocity', 'disposable_email']);
  });

  it('applies no rule the brand switched off', () => {
    const off: FraudSettings = { ...allOn, fraud_self_referral: false, fraud_velocity: false, fraud_disposable_email: false };
    const signals = { advocate_email: 'ann@mailinator.com', same_customer: true, same_visitor: true, same_ip: true, advocate_last_hour: 99, ip_last_day: 99 };
    expect(fraudReasons(off, { ...order, email: 'ann@mailinator.com' }, signals)).toEqual([]);
    expect(fraudReasons({ ...allOn, fraud_max_per_advocate_hour: 0, fraud_max_per_ip_day: null }, order, { ...NO_SIGNALS, advocate_last_hour: 99, ip_last_day: 99 })).toEqual([]);
  });
});
