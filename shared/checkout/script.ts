import { DATE_TIME_OPTIONS } from './language.js';

/** How often an open page asks for the invoice's status. */
const POLL_INTERVAL_MS = 2000;

/**
 * Copy buttons (the clipboard API, else a selection), dates in the reader's own time zone, the
 * countdown to the invoice's expiry (reloading when it runs out, so the server shows the expired
 * state), and the live status: on completion the customer goes to the return URL, and any other
 * change (a status, a partial payment) reloads the page, which the server renders anew.
 */
export const CHECKOUT_SCRIPT = `(function () {
  'use strict';
  function copyBySelection(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.appendChild(area);
    area.select();
    var copied = false;
    try { copied = document.execCommand('copy'); } catch (error) { copied = false; }
    area.remove();
    return copied;
  }
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    var label = button.textContent;
    button.addEventListener('click', function () {
      var text = button.getAttribute('data-copy');
      function show(copied) {
        button.textContent = button.getAttribute(copied ? 'data-copied' : 'data-copy-failed');
        setTimeout(function () { button.textContent = label; }, 2000);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { show(true); }, function () { show(copyBySelection(text)); });
      } else {
        show(copyBySelection(text));
      }
    });
  });
  try {
    var dates = new Intl.DateTimeFormat(document.documentElement.lang, ${JSON.stringify(DATE_TIME_OPTIONS)});
    document.querySelectorAll('time[datetime]').forEach(function (time) {
      time.textContent = dates.format(new Date(time.getAttribute('datetime')));
    });
  } catch (error) { /* The server's UTC time stays. */ }
  var countdown = document.querySelector('[data-seconds-left]');
  if (countdown) {
    var end = Date.now() + Number(countdown.getAttribute('data-seconds-left')) * 1000;
    var pad = function (n) { return (n < 10 ? '0' : '') + n; };
    var timer = setInterval(tick, 1000);
    function tick() {
      var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      var hours = Math.floor(left / 3600);
      var minutes = Math.floor((left % 3600) / 60);
      countdown.textContent = (hours > 0 ? hours + ':' + pad(minutes) : minutes) + ':' + pad(left % 60);
      if (left === 0) {
        clearInterval(timer);
        location.reload();
      }
    }
    tick();
  }
  var watched = document.querySelector('[data-status-url]');
  if (watched) {
    var shownStatus = watched.getAttribute('data-status');
    var shownPaid = watched.getAttribute('data-paid');
    var poll = function () {
      fetch(watched.getAttribute('data-status-url'), { cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) {
          var current = body && body.data;
          if (current && current.status === 'completed' && /^https?:\\/\\//i.test(current.redirectUrl || '')) {
            location.replace(current.redirectUrl);
          } else if (current && (current.status !== shownStatus || current.paidAmount !== shownPaid)) {
            location.reload();
          } else {
            setTimeout(poll, ${POLL_INTERVAL_MS});
          }
        }, function () { setTimeout(poll, ${POLL_INTERVAL_MS}); });
    };
    setTimeout(poll, ${POLL_INTERVAL_MS});
  }
})();`;
