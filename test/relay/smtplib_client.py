"""Sends one message with Python's smtplib as an app would; reads a JSON request on stdin, prints the outcome as JSON.

The request: port, security (starttls, implicit or none), login ({mechanism, username, password} or null), from,
to (a list), messageFile (the whole message, sent as its bytes), mailOptions (e.g. ["BODY=8BITMIME"]).
"""

import json
import smtplib
import ssl
import sys

request = json.load(sys.stdin)
# The test certificate is self-signed: verification is not what these tests are about.
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE

stage = "connect"
try:
    if request["security"] == "implicit":
        client = smtplib.SMTP_SSL("127.0.0.1", request["port"], context=context, timeout=15)
    else:
        client = smtplib.SMTP("127.0.0.1", request["port"], timeout=15)
    stage = "ehlo"
    client.ehlo()
    if request["security"] == "starttls":
        stage = "starttls"
        client.starttls(context=context)
        client.ehlo()
    features = sorted(client.esmtp_features.keys())
    login = request.get("login")
    if login:
        stage = "auth"
        client.user, client.password = login["username"], login["password"]
        mechanism = login["mechanism"]
        authobject = client.auth_plain if mechanism == "PLAIN" else client.auth_login
        client.auth(mechanism, authobject)
    stage = "send"
    with open(request["messageFile"], "rb") as message:
        refused = client.sendmail(request["from"], request["to"], message.read(), request["mailOptions"])
    client.quit()
    refused = {address: [code, reply.decode()] for address, (code, reply) in refused.items()}
    print(json.dumps({"ok": True, "refused": refused, "features": features}))
except smtplib.SMTPRecipientsRefused as err:
    first = next(iter(err.recipients.values()))
    print(json.dumps({"ok": False, "stage": "rcpt", "code": first[0], "message": first[1].decode()}))
except smtplib.SMTPResponseException as err:
    message = err.smtp_error.decode() if isinstance(err.smtp_error, bytes) else str(err.smtp_error)
    print(json.dumps({"ok": False, "stage": stage, "code": err.smtp_code, "message": message}))
