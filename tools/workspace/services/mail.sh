#!/usr/bin/env bash
# Mail for the email family's tests: Dovecot (IMAP on 127.0.0.1:10143, LMTP on :10024) and OpenSMTPD (SMTP on
# 127.0.0.1:10025) delivering mail for example.test into Dovecot. Users alice and bob, password secret.
# Idempotent; needs no systemd.
set -euo pipefail
DIR=/var/tmp/assistant-mail
up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
id vmail >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin vmail
mkdir -p "$DIR/home" "$DIR/run" "$DIR/state"
chown vmail:vmail "$DIR/home"
printf 'alice:{PLAIN}secret\nbob:{PLAIN}secret\n' >"$DIR/users"
cat >"$DIR/dovecot.conf" <<CONF
protocols = imap lmtp
listen = 127.0.0.1
base_dir = $DIR/run
state_dir = $DIR/state
log_path = $DIR/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_username_format = %Ln
first_valid_uid = 1
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%n $DIR/users
}
userdb {
  driver = static
  args = uid=vmail gid=vmail home=$DIR/home/%n
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
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = 10143
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = 10024
  }
}
CONF
# Dovecot keeps the stderr it was started with for as long as it runs: give it its log, not ours.
if ! up 10143; then dovecot -c "$DIR/dovecot.conf" </dev/null >>"$DIR/dovecot.log" 2>&1; fi
cat >"$DIR/smtpd.conf" <<CONF
listen on 127.0.0.1 port 10025
table mailboxes { "alice@example.test" = "vmail", "bob@example.test" = "vmail" }
action "to_dovecot" lmtp "127.0.0.1:10024" rcpt-to virtual <mailboxes>
match from local for domain "example.test" action "to_dovecot"
match from any for domain "example.test" action "to_dovecot"
CONF
chmod 0644 "$DIR/smtpd.conf"
if ! up 10025; then smtpd -f "$DIR/smtpd.conf"; fi
for _ in $(seq 1 50); do up 10143 && up 10025 && exit 0; sleep 0.2; done
echo "mail: dovecot or smtpd did not start (see $DIR/dovecot.log, journal of smtpd)" >&2
exit 1
