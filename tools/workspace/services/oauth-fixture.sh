#!/usr/bin/env bash
# The OAuth test ground of issue 22 — FIXTURES standing in for Google and Microsoft, on loopback:
#   127.0.0.1:9400  the OAuth provider fixture (oidc-provider: code + PKCE, refresh, revocation, introspection;
#                   tools/workspace/fixtures/oauth-provider-fixture.mjs says what else it offers tests)
#   127.0.0.1:9401  the Microsoft Graph calendar fixture (tools/workspace/fixtures/graph-calendar-fixture.mjs)
#   127.0.0.1:10144 IMAP and 127.0.0.1:10587 submission: a second Dovecot whose oauth2 passdb checks the bearer
#                   (XOAUTH2, OAUTHBEARER) against the provider's introspection endpoint; the mailboxes are mail.sh's
#                   (alice logs in as alice@example.test), and submission relays to mail.sh's OpenSMTPD
#   127.0.0.1:5233  CalDAV with a bearer token: nginx (njs) introspects the token, wants Google's calendar scope,
#                   and passes the request on to calendar.sh's Radicale as that user
# The mail and calendar services are only reached when a test logs in, so the order of the scripts does not
# matter. Idempotent; every daemon gets its own stdio (a log file here), never the script's.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DIR=/var/tmp/assistant-oauth-fixture
MAIL_HOME=/var/tmp/assistant-mail/home
up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
basic() { printf '%s' "$1" | base64 -w0; }
mkdir -p "$DIR/run" "$DIR/state" "$DIR/nginx"
id vmail >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin vmail
mkdir -p "$MAIL_HOME" && chown vmail:vmail "$MAIL_HOME"

# The provider and the Graph fixture: Node, from this checkout's node_modules (oidc-provider is a dependency).
start_node() { # port, script
  if up "$1"; then return 0; fi
  nohup node "$ROOT/tools/workspace/fixtures/$2" </dev/null >>"$DIR/${2%.mjs}.log" 2>&1 &
}
start_node 9400 oauth-provider-fixture.mjs
start_node 9401 graph-calendar-fixture.mjs

# Dovecot with the oauth2 passdb. Introspection answers `x_fixture_mail_access` (see the provider fixture):
# Dovecot 2.3 can only require all of a list of scopes, and a token has Gmail's or Outlook's, not both.
cat >"$DIR/dovecot-oauth2.conf.ext" <<CONF
introspection_mode = post
introspection_url = http://dovecot-fixture:dovecot-fixture-secret@127.0.0.1:9400/token/introspection
force_introspection = yes
username_attribute = email
username_format = %Ln
active_attribute = x_fixture_mail_access
active_value = true
CONF
cat >"$DIR/dovecot.conf" <<CONF
instance_name = assistant-mail-oauth
protocols = imap submission
listen = 127.0.0.1
base_dir = $DIR/run
state_dir = $DIR/state
log_path = $DIR/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = xoauth2 oauthbearer
auth_username_format = %Ln
# Tests refuse tokens on purpose, all from 127.0.0.1: no delay after a failure, and no penalty growing with each
# failure from one address (anvil's auth penalty is off when its socket cannot be opened).
auth_failure_delay = 0
first_valid_uid = 1
hostname = mail.example.test
passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = $DIR/dovecot-oauth2.conf.ext
}
userdb {
  driver = static
  args = uid=vmail gid=vmail home=$MAIL_HOME/%n
}
mail_location = maildir:~/Maildir
namespace inbox {
  inbox = yes
  mailbox Drafts {
    special_use = \Drafts
    auto = create
  }
  mailbox Sent {
    special_use = \Sent
    auto = create
  }
}
submission_relay_host = 127.0.0.1
submission_relay_port = 10025
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = 10144
  }
}
service submission-login {
  inet_listener submission {
    address = 127.0.0.1
    port = 10587
  }
}
CONF
if ! up 10144; then dovecot -c "$DIR/dovecot.conf" </dev/null >>"$DIR/dovecot.log" 2>&1; fi

# CalDAV with a bearer token: nginx asks the provider (RFC 7662) about each request's token.
cat >"$DIR/bearer-check.js" <<'JS'
// nginx auth_request handler: 204 (and the user) when the bearer is active and has Google's calendar scope.
async function check(r) {
  const bearer = /^Bearer\s+(\S+)$/i.exec(r.headersIn.Authorization || '');
  if (!bearer) return r.return(401);
  const reply = await r.subrequest('/_introspect', {
    method: 'POST',
    body: 'token=' + encodeURIComponent(bearer[1]),
  });
  if (reply.status !== 200) return r.return(500);
  const token = JSON.parse(reply.responseText);
  const scopes = String(token.scope || '').split(' ');
  if (token.active !== true || !scopes.includes('https://www.googleapis.com/auth/calendar')) return r.return(401);
  r.headersOut['X-Fixture-User'] = token.sub;
  r.return(204);
}
export default { check };
JS
cat >"$DIR/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_js_module.so;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log;
events {}
http {
  access_log $DIR/nginx-access.log;
  client_body_temp_path $DIR/nginx/body;
  proxy_temp_path $DIR/nginx/proxy;
  fastcgi_temp_path $DIR/nginx/fastcgi;
  uwsgi_temp_path $DIR/nginx/uwsgi;
  scgi_temp_path $DIR/nginx/scgi;
  js_import bearer from $DIR/bearer-check.js;
  # The provider's subject to Radicale's own login (calendar.sh's user).
  map \$fixture_user \$radicale_authorization {
    alice "Basic $(basic alice:secret)";
    default "";
  }
  server {
    listen 127.0.0.1:5233;
    client_max_body_size 10m;
    location = /_bearer_check {
      internal;
      js_content bearer.check;
    }
    location = /_introspect {
      internal;
      proxy_method POST;
      proxy_set_header Authorization "Basic $(basic caldav-proxy-fixture:caldav-proxy-fixture-secret)";
      proxy_set_header Content-Type application/x-www-form-urlencoded;
      proxy_pass http://127.0.0.1:9400/token/introspection;
    }
    location @invalid_token {
      add_header WWW-Authenticate 'Bearer realm="caldav-bearer-fixture", error="invalid_token"' always;
      return 401;
    }
    location / {
      auth_request /_bearer_check;
      auth_request_set \$fixture_user \$sent_http_x_fixture_user;
      error_page 401 = @invalid_token;
      proxy_set_header Authorization \$radicale_authorization;
      proxy_set_header Host \$http_host;
      proxy_pass http://127.0.0.1:5232;
    }
  }
}
CONF
if ! up 5233; then nginx -c "$DIR/nginx.conf" </dev/null >>"$DIR/nginx-error.log" 2>&1; fi

for _ in $(seq 1 50); do up 9400 && up 9401 && up 10144 && up 10587 && up 5233 && exit 0; sleep 0.2; done
echo "oauth-fixture: a fixture did not start (see the logs in $DIR)" >&2
exit 1
