/*
 * kpca-due-panel: each student's own due date in nbgrader's Assignments panel.
 *
 * A JupyterLab 4 federated extension written by hand (no webpack, no Node at install
 * time): JupyterLab loads this script, calls init(shareScope) and get("./extension"), and
 * activates the plugin it returns. The plugin requires nothing, so it shares no package.
 * It watches the panel's rows (#released/fetched/submitted_assignments_list), asks its own
 * Jupyter server's route (GET <base_url>kpca/due?ps=...) for the problem sets they name
 * and writes the line that comes back under each row, as text (textContent): nothing it
 * receives is ever parsed as HTML. Off the hub, or when the route is missing, it stops and
 * shows nothing; a slow answer never holds the panel (it writes when the answer comes).
 * python -m kit.duepanel --build copies this file to static/remoteEntry.<hash>.js.
 */
var _JUPYTERLAB;
(function () {
  'use strict';
  var NAME = 'kpca-due-panel';
  var LISTS = ['released', 'fetched', 'submitted'];
  var ROWS = LISTS.map(function (l) {
    return '#' + l + '_assignments_list > .list_item';
  }).join(', ');
  var PS_NAME = /^[A-Za-z0-9_-]{1,64}$/;
  var MOST_NAMES = 16;
  var FRESH_MS = 10000; // an answer is reused this long
  var WAIT_MS = 15000; // the route answers within ~6 s; give up after this
  var MARK = 'kpca-due';

  function baseUrl(app) {
    var settings = app && app.serviceManager && app.serviceManager.serverSettings;
    if (settings && settings.baseUrl) {
      return settings;
    }
    var data = {};
    var el = document.getElementById('jupyter-config-data');
    try {
      data = JSON.parse((el && el.textContent) || '{}');
    } catch (e) {
      data = {};
    }
    return { baseUrl: data.baseUrl || '/', token: data.token || '' };
  }

  function xsrf() {
    var found = document.cookie.match('\\b_xsrf=([^;]*)\\b');
    return found ? found[1] : '';
  }

  function activate(app) {
    var settings = baseUrl(app);
    var known = new Map(); // ps -> {at, entry}
    var course = null; // the course whose rows are marked (null: every row)
    var stopped = false;
    var asking = false;
    var again = false;
    var timer = null;

    function rowName(row) {
      var head = row.querySelector(':scope > .col-md-12 > .item_name');
      return head ? (head.textContent || '').trim() : '';
    }

    function rowCourse(row) {
      var cell = row.querySelector(':scope > .col-md-12 > .item_course');
      return cell ? (cell.textContent || '').trim() : '';
    }

    function show(row, entry) {
      var line = row.querySelector(':scope > .' + MARK);
      var text = entry && typeof entry.shown === 'string' ? entry.shown : '';
      if (!text) {
        if (line) {
          line.remove();
        }
        return;
      }
      if (!line) {
        line = document.createElement('div');
        line.className = 'col-md-12 ' + MARK;
        line.style.fontSize = 'var(--jp-ui-font-size0)';
        line.style.color = 'var(--jp-ui-font-color1)';
        line.style.padding = '0 0 4px 15px';
        var head = row.querySelector(':scope > .col-md-12');
        if (head) {
          head.after(line);
        } else {
          row.prepend(line);
        }
      }
      if (line.textContent !== text) {
        line.textContent = text; // text, never markup
      }
      line.dataset.extended = entry.extended === true ? 'true' : 'false';
    }

    function scan() {
      timer = null;
      if (stopped) {
        return;
      }
      var rows = document.querySelectorAll(ROWS);
      var now = Date.now();
      var wanted = [];
      rows.forEach(function (row) {
        var ps = rowName(row);
        if (!PS_NAME.test(ps) || (course !== null && rowCourse(row) !== course)) {
          show(row, null);
          return;
        }
        var kept = known.get(ps);
        if (kept) {
          show(row, kept.entry);
        }
        if ((!kept || now - kept.at > FRESH_MS) && wanted.indexOf(ps) < 0) {
          wanted.push(ps);
        }
      });
      if (wanted.length) {
        ask(wanted.slice(0, MOST_NAMES));
      }
    }

    function later(ms) {
      if (!stopped && timer === null) {
        timer = setTimeout(scan, ms);
      }
    }

    function ask(names) {
      if (asking) {
        again = true;
        return;
      }
      asking = true;
      var url = settings.baseUrl.replace(/\/?$/, '/') + 'kpca/due?' +
        names.map(function (ps) { return 'ps=' + encodeURIComponent(ps); }).join('&');
      var headers = { 'X-XSRFToken': xsrf() };
      if (settings.token) {
        headers.Authorization = 'token ' + settings.token;
      }
      var abort = new AbortController();
      var guard = setTimeout(function () { abort.abort(); }, WAIT_MS);
      fetch(url, { credentials: 'same-origin', headers: headers, signal: abort.signal })
        .then(function (response) {
          if (!response.ok) {
            // a server without the route (404) or no login (401, 403): nothing to show
            stopped = response.status === 404 || response.status === 403 ||
              response.status === 401;
            return null;
          }
          return response.json();
        })
        .then(function (reply) {
          var at = Date.now();
          if (reply && reply.off_hub === true) {
            stopped = true; // off the hub: this server asks no check service
            return;
          }
          if (reply && typeof reply === 'object' && reply.due && typeof reply.due === 'object') {
            course = typeof reply.course === 'string' ? reply.course : null;
            names.forEach(function (ps) {
              var entry = Object.prototype.hasOwnProperty.call(reply.due, ps) ? reply.due[ps] : null;
              known.set(ps, { at: at, entry: entry && typeof entry === 'object' ? entry : null });
            });
          } else {
            names.forEach(function (ps) { known.set(ps, { at: at, entry: null }); });
          }
        })
        .catch(function () {
          var at = Date.now(); // no answer in time: nothing shown, asked again later
          names.forEach(function (ps) { known.set(ps, { at: at, entry: null }); });
        })
        .then(function () {
          clearTimeout(guard);
          asking = false;
          if (stopped) {
            observer.disconnect();
            document.querySelectorAll('.' + MARK).forEach(function (el) { el.remove(); });
            return;
          }
          scan();
          if (again) {
            again = false;
            later(50);
          }
        });
    }

    var observer = new MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        var target = records[i].target;
        if (target && target.classList && target.classList.contains(MARK)) {
          continue; // our own line changed
        }
        later(100);
        return;
      }
    });
    observer.observe(document.body, { childList: true, subtree: true });
    later(0);
  }

  var plugin = {
    id: NAME + ':plugin',
    description: "Each student's own due date in nbgrader's Assignments panel.",
    autoStart: true,
    activate: activate
  };

  var container = {
    init: function () {
      return Promise.resolve();
    },
    get: function (module) {
      if (module === './extension' || module === './index') {
        return Promise.resolve(function () {
          return { __esModule: true, default: [plugin] };
        });
      }
      return Promise.reject(new Error('Module "' + module + '" does not exist in container.'));
    }
  };

  _JUPYTERLAB = window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = container;
})();
