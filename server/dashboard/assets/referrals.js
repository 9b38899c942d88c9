// referrals.js: the storefront's part of the referral program (docs/merchants/storefront.md). No
// dependencies; configured by its own script tag:
//   <script src="https://<service>/referrals.js" data-brand="<brand id>" data-key="pk_…" async></script>
// It records the landing visit of a referral link with the brand's publishable key, keeps the
// visitor id and the code in first-party cookies (as the service's store_code / clear_existing
// say), puts them in the Shopify cart's attributes, and offers Referrals.join() (the code goes out by email).
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || window.Referrals) return;
  var api = (script.getAttribute('data-api') || new URL(script.src).origin).replace(/\/+$/, '');
  var brand = script.getAttribute('data-brand') || '';
  var key = script.getAttribute('data-key') || '';
  var days = Number(script.getAttribute('data-cookie-days')) || 30;
  var names = ['ref', 'referral', 'adv', 'advocate'].concat((script.getAttribute('data-params') || '').split(',').filter(Boolean));
  var CODE = 'referrals_code';
  var VISITOR = 'referrals_visitor';

  function readCookie(name) {
    var match = document.cookie.match(new RegExp('(?:^|; )' + name + '=([^;]*)'));
    return match ? decodeURIComponent(match[1]) : null;
  }
  function writeCookie(name, value, maxDays) {
    document.cookie = name + '=' + encodeURIComponent(value) + '; Max-Age=' + Math.round(maxDays * 86400) + '; Path=/; SameSite=Lax' +
      (location.protocol === 'https:' ? '; Secure' : '');
  }
  function post(path, body) {
    return fetch(api + path, {
      method: 'POST',
      credentials: 'omit',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key, 'X-Brand-ID': brand },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) throw new Error(answer.error || 'HTTP ' + response.status);
        return answer.data;
      });
    });
  }
  // Shopify's storefront keeps cart attributes on the order: the paid-order webhook reads ref and visitor_id.
  function cartAttributes(code, visitorId) {
    if (!window.Shopify || !window.fetch) return Promise.resolve();
    return fetch('/cart/update.js', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ attributes: { ref: code || '', visitor_id: visitorId || '' } }),
    }).catch(function () {});
  }

  var query = new URLSearchParams(location.search);
  var landed = null;
  for (var i = 0; i < names.length && !landed; i += 1) landed = query.get(names[i]);

  var visit = Promise.resolve(null);
  if (landed) {
    var body = { referral_code: landed, landing_page: location.href };
    var visitorId = readCookie(VISITOR);
    var existing = readCookie(CODE);
    if (visitorId) body.visitor_id = visitorId;
    if (existing) body.existing_code = existing;
    ['utm_source', 'utm_medium', 'utm_campaign'].forEach(function (name) {
      if (query.get(name)) body[name] = query.get(name);
    });
    if (query.get('utm_source')) body.share_channel = query.get('utm_source');
    visit = post('/api/v1/track/visit', body).then(function (data) {
      writeCookie(VISITOR, data.visitor_id, days);
      if (data.clear_existing) writeCookie(CODE, '', 0);
      if (data.store_code) writeCookie(CODE, data.code, days);
      var code = readCookie(CODE);
      return cartAttributes(code, data.visitor_id).then(function () {
        document.dispatchEvent(new CustomEvent('referrals:visit', { detail: data }));
        return data;
      });
    }).catch(function (error) {
      // Said in the console too, for whoever sets the store up (a plan without link visits answers why).
      if (window.console) console.warn('referrals.js: the visit was not recorded: ' + error.message);
      document.dispatchEvent(new CustomEvent('referrals:error', { detail: { message: error.message } }));
      return null;
    });
  }

  window.Referrals = {
    /** The recorded landing (null when the page had no referral parameter, or it failed). */
    visit: visit,
    code: function () { return readCookie(CODE); },
    visitorId: function () { return readCookie(VISITOR); },
    /**
     * Joins the program: {email, first_name[, last_name]} → {status: 'check_your_email'}, the same for
     * any address; the code and link go to the address by email. The caller asks for consent first.
     */
    join: function (input) {
      return post('/api/v1/advocates/join', { email: input.email, first_name: input.first_name, last_name: input.last_name, consent: true });
    },
  };
})();
