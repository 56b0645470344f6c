#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# unbound-control-setup - make the keys and certificates for the remote
# control, with the file names Unbound uses:
#   unbound_server.key, unbound_server.pem (self-signed, CN=unbound)
#   unbound_control.key, unbound_control.pem (signed by the server key)
# usage: unbound-control-setup [-d dir] [-r]   (-r: recreate the keys)
DESTDIR=@RUN_DIR@
SERVERNAME=unbound
CLIENTNAME=unbound-control
DAYS=7200
BITS=3072
RECREATE=0

usage() {
	echo "usage: $0 [-d dir] [-r]"
	echo "	-d dir	use directory to store keys and certificates."
	echo "		default: $DESTDIR"
	echo "	-r	recreate the private keys as well"
	exit 1
}

while getopts "d:rh" opt; do
	case "$opt" in
	d) DESTDIR="$OPTARG" ;;
	r) RECREATE=1 ;;
	*) usage ;;
	esac
done

fatal() {
	echo "$0: error: $*" >&2
	exit 1
}

command -v openssl >/dev/null || fatal "openssl is needed to make the keys"
echo "setup in directory $DESTDIR"
cd "$DESTDIR" || fatal "could not cd to $DESTDIR"
umask 0027

TMP=$(mktemp -d) || fatal "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

if [ $RECREATE = 1 ] || [ ! -f unbound_server.key ]; then
	echo "generating unbound_server.key"
	openssl genrsa -out unbound_server.key "$BITS" 2>/dev/null ||
		fatal "could not generate unbound_server.key"
fi
cat > "$TMP/server.cnf" <<EOC
[req]
default_bits=$BITS
default_md=sha256
prompt=no
distinguished_name=req_distinguished_name
x509_extensions=v3_ca
[req_distinguished_name]
commonName=$SERVERNAME
[v3_ca]
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid:always,issuer:always
basicConstraints=critical,CA:TRUE,pathlen:0
subjectAltName=DNS:$SERVERNAME
EOC
echo "create unbound_server.pem (self signed certificate)"
openssl req -key unbound_server.key -config "$TMP/server.cnf" -new -x509 \
	-days "$DAYS" -out unbound_server.pem ||
	fatal "could not create unbound_server.pem"

if [ $RECREATE = 1 ] || [ ! -f unbound_control.key ]; then
	echo "generating unbound_control.key"
	openssl genrsa -out unbound_control.key "$BITS" 2>/dev/null ||
		fatal "could not generate unbound_control.key"
fi
cat > "$TMP/client.cnf" <<EOC
[req]
default_bits=$BITS
default_md=sha256
prompt=no
distinguished_name=req_distinguished_name
req_extensions=v3_req
[req_distinguished_name]
commonName=$CLIENTNAME
[v3_req]
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth
subjectAltName=DNS:$CLIENTNAME
EOC
echo "create unbound_control.pem (signed client certificate)"
openssl req -key unbound_control.key -config "$TMP/client.cnf" -new |
	openssl x509 -req -days "$DAYS" -CA unbound_server.pem \
		-CAkey unbound_server.key -CAcreateserial -sha256 \
		-extfile "$TMP/client.cnf" -extensions v3_req \
		-out unbound_control.pem ||
	fatal "could not create unbound_control.pem"
rm -f unbound_server.srl
# the keys readable for the group the daemon runs as, not for others
chmod o-rw unbound_server.key unbound_control.key unbound_control.pem
echo "Setup success. Certificates created. Enable in unbound.conf file to use"
