/**
 * The script of every signup form (hosted page and embed code), served at /f/script.js. It
 * fetches the form's ALTCHA challenge and solves it in the background while the visitor types
 * (SHA-256 of salt + n, in plain JavaScript: `crypto.subtle` exists only on https pages), sends the
 * form as JSON and shows the answer in the form, errors beside their fields. On the confirmation
 * page it makes the POST that confirms, which a link scanner fetching the URL never does.
 * Plain ES5-style code, no dependencies, a few kilobytes.
 */
export const FORM_SCRIPT = `(function () {
  'use strict';
  var K = [0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,
    0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,
    0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,
    0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,
    0x81c2c92e,0x92722c85,0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,
    0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,
    0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2];
  var encoder = new TextEncoder();
  var w = new Array(64);

  function sha256hex(text) {
    var bytes = encoder.encode(text), l = bytes.length, i, j, t;
    var words = new Array(((l + 8) >> 6) * 16 + 16).fill(0);
    for (i = 0; i < l; i++) words[i >> 2] |= bytes[i] << (24 - (i & 3) * 8);
    words[l >> 2] |= 0x80 << (24 - (l & 3) * 8);
    words[words.length - 1] = l * 8;
    var H = [0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19];
    for (j = 0; j < words.length; j += 16) {
      var a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
      for (t = 0; t < 64; t++) {
        if (t < 16) w[t] = words[j + t] | 0;
        else {
          var x = w[t - 15], y = w[t - 2];
          w[t] = (((x >>> 7 | x << 25) ^ (x >>> 18 | x << 14) ^ (x >>> 3)) + w[t - 7] +
            ((y >>> 17 | y << 15) ^ (y >>> 19 | y << 13) ^ (y >>> 10)) + w[t - 16]) | 0;
        }
        var t1 = (h + ((e >>> 6 | e << 26) ^ (e >>> 11 | e << 21) ^ (e >>> 25 | e << 7)) + ((e & f) ^ (~e & g)) +
          K[t] + w[t]) | 0;
        var t2 = (((a >>> 2 | a << 30) ^ (a >>> 13 | a << 19) ^ (a >>> 22 | a << 10)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0;
      H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
    }
    return H.map(function (v) { return ('0000000' + (v >>> 0).toString(16)).slice(-8); }).join('');
  }

  /** Finds n with SHA-256(salt + n) = challenge, in slices that leave the page responsive. */
  function solve(ch) {
    return new Promise(function (resolve, reject) {
      var n = 0;
      (function slice() {
        var end = Math.min(n + 4000, ch.maxnumber);
        for (; n <= end; n++) {
          if (sha256hex(ch.salt + n) === ch.challenge) {
            return resolve(btoa(JSON.stringify({ algorithm: ch.algorithm, challenge: ch.challenge, number: n,
              salt: ch.salt, signature: ch.signature })));
          }
        }
        if (n > ch.maxnumber) return reject(new Error('unsolved'));
        setTimeout(slice, 0);
      })();
    });
  }

  function readJson(response) {
    return response.json().then(function (body) { return { ok: response.ok, body: body }; });
  }

  function setup(form) {
    var base = form.getAttribute('data-postbox-form');
    var status = form.querySelector('.pb-status');
    var button = form.querySelector('button[type=submit]');
    var proof;
    function prepare() {
      proof = fetch(base + '/challenge', { headers: { accept: 'application/json' } })
        .then(readJson)
        .then(function (r) { if (!r.ok) throw r; return solve(r.body.data); });
      proof.catch(function () {});
    }
    function inputFor(field) {
      if (field === 'email') return form.querySelector('[name=email]');
      return form.querySelector('[data-key="' + field.replace(/^data\\./, '') + '"]');
    }
    function clearErrors() {
      form.querySelectorAll('[aria-invalid]').forEach(function (el) { el.removeAttribute('aria-invalid'); });
      form.querySelectorAll('.pb-field .pb-error').forEach(function (el) { el.hidden = true; el.textContent = ''; });
    }
    function refuse(error) {
      status.className = 'pb-status pb-refused';
      status.textContent = error.message || form.getAttribute('data-failed') || '';
      var first;
      (error.errors || []).forEach(function (fe) {
        var input = inputFor(fe.field);
        if (!input) return;
        input.setAttribute('aria-invalid', 'true');
        var note = document.getElementById(input.id + '-error');
        if (note) { note.textContent = fe.message; note.hidden = false; }
        first = first || input;
      });
      // Said beside the field already: the message below the button would repeat it.
      if (first) { status.textContent = ''; first.focus(); }
    }
    function done(data) {
      if (data.redirectUrl) { window.location.assign(data.redirectUrl); return; }
      Array.prototype.forEach.call(form.children, function (el) { if (el !== status) el.hidden = true; });
      status.className = 'pb-status pb-done';
      status.textContent = data.message;
    }
    var noscript = form.querySelector('.pb-noscript');
    if (noscript) noscript.hidden = true;
    prepare();
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearErrors();
      button.disabled = true;
      status.className = 'pb-status';
      status.textContent = form.getAttribute('data-sending');
      var data = {};
      form.querySelectorAll('[data-key]').forEach(function (input) {
        data[input.getAttribute('data-key')] = input.type === 'checkbox' ? input.checked : input.value;
      });
      var topics = [];
      form.querySelectorAll('[data-topic]').forEach(function (input) {
        if (input.checked) topics.push(input.getAttribute('data-topic'));
      });
      proof.then(function (altcha) {
        return fetch(base + '/submissions', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ email: form.elements.email.value, data: data, website: form.elements.website.value,
            locale: form.lang, altcha: altcha, topics: topics })
        }).then(readJson);
      }).then(function (r) {
        if (r.ok) return done(r.body.data);
        refuse(r.body.error || {});
        // A solution counts once; one sent too quickly is still good a moment later.
        if (!r.body.error || r.body.error.code !== 'TOO_FAST') prepare();
      }).catch(function (r) {
        refuse((r && r.body && r.body.error) || {});
        prepare();
      }).then(function () { button.disabled = false; });
    });
  }

  function confirmNow(form) {
    var button = form.querySelector('button');
    button.disabled = true;
    button.textContent = form.getAttribute('data-confirming');
    HTMLFormElement.prototype.submit.call(form);
  }

  document.querySelectorAll('form[data-postbox-form]').forEach(setup);
  document.querySelectorAll('form[data-postbox-confirm]').forEach(confirmNow);
})();
`;
