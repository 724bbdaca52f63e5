# gunicorn serving the CFN API (port 8000: wait condition and signal URLs,
# cfn-init and cfn-hup metadata):
#   gunicorn -c /etc/keel-heat/gunicorn/keel-heat-api-cfn.conf.py \
#       keel_heat_api.wsgi_cfn:application
# The application reads /etc/keel-heat/keel-heat.conf (or
# KEEL_HEAT_CONFIG_FILES), never gunicorn's command line.
bind = ["0.0.0.0:8000"]
workers = 2
worker_class = "gthread"
threads = 8
# Build the application in each worker, after the fork (no preload): each
# worker opens its own messaging and database connections.
preload_app = False
timeout = 120
# Keep idle connections longer than clients do (gunicorn's default of 2 s
# closes connections that clients and proxies are about to reuse; they see
# a reset). Behind a proxy, keep this above the proxy's own idle timeout.
keepalive = 75
accesslog = "-"
errorlog = "-"
