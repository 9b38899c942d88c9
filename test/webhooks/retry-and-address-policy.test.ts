import { checkWebhookUrl, isPublicAddress } from '../../core/webhooks/address-policy';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, retryDelaySeconds } from '../../core/webhooks/retry-schedule';

describe('the webhook retry schedule', () => {
  it('waits 1 min, 5 min, 30 min, 2 h, 5 h, 10 h and 14 h: 8 attempts over more than 24 hours', () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([60, 300, 1800, 7200, 18000, 36000, 50400]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0)).toBe(113_760); // 31 h 36 min
    expect(retryDelaySeconds(8)).toBeNull();
  });

  it('jitters each wait by ±20 % and scales it', () => {
    expect(retryDelaySeconds(1, 1, () => 0)).toBe(48);
    expect(retryDelaySeconds(1, 1, () => 1)).toBeCloseTo(72);
    expect(retryDelaySeconds(2, 1, () => 0.5)).toBe(300);
    expect(retryDelaySeconds(7, 0.001, () => 0.5)).toBeCloseTo(50.4);
  });
});

describe('where a webhook may be sent', () => {
  it.each(['10.0.0.1', '172.16.5.4', '192.168.0.1', '127.0.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fe80::1', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '2002:7f00:1::1', 'not-an-ip',
    // IPv4-compatible (::/96): deprecated, and another spelling of an IPv4 address, public or not.
    '::127.0.0.1', '::7f00:1', '::10.0.0.1', '::8.8.8.8', 'fe80::1%eth0'])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('checks literal addresses in URLs, in every spelling the URL parser normalizes', () => {
    for (const url of ['http://127.1/', 'http://0x7f000001/', 'http://2130706433/', 'http://[::ffff:7f00:1]/', 'http://[0:0:0:0:0:0:0:1]/', 'http://[::127.0.0.1]/']) {
      expect(() => checkWebhookUrl(url, false)).toThrow(/^url points at a private, loopback or reserved address/);
      expect(checkWebhookUrl(url, true)).toBeInstanceOf(URL);
    }
    expect(checkWebhookUrl('https://hooks.example.com/x', false).toString()).toBe('https://hooks.example.com/x');
  });
});
