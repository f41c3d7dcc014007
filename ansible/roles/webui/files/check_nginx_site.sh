#!/bin/sh
# Checks a new version of the ADWISER nginx site before it replaces the installed one (the webui role's template
# `validate`): `nginx -t` on nginx.conf as it will be, with the enabled sites but the installed ADWISER one, and the
# candidate in its place. A site is a part of nginx.conf's http block, which nginx cannot check alone.
# Usage: adwiser-check-nginx-site CANDIDATE
# ADWISER_NGINX_CONF and ADWISER_NGINX_SITES name nginx.conf and the folder of enabled sites it includes
# (Debian's by default).
set -eu
candidate=$(realpath "$1")
conf=${ADWISER_NGINX_CONF:-/etc/nginx/nginx.conf}
sites=${ADWISER_NGINX_SITES:-/etc/nginx/sites-enabled}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/sites"
for site in "$sites"/*; do
    if [ -e "$site" ] && [ "${site##*/}" != adwiser ]; then
        ln -s "$site" "$work/sites/"
    fi
done
ln -s "$candidate" "$work/sites/adwiser"

# nginx.conf with its (uncommented) include of the enabled sites taken from the folder above. Without that line
# the candidate would not be part of what nginx checks, and any site would pass.
if ! awk -v from="include $sites/*;" -v to="include $work/sites/*;" '
    { line = $0; sub(/^[ \t]+/, "", line) }
    index(line, from) == 1 { $0 = to substr(line, length(from) + 1); found = 1 }
    { print }
    END { exit !found }
' "$conf" > "$work/nginx.conf"; then
    echo "adwiser-check-nginx-site: $conf does not include $sites/*, so the site cannot be checked in place" >&2
    exit 1
fi
nginx -t -q -c "$work/nginx.conf"
