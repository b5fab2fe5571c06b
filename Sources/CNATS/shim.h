// nats.c, the official NATS C client (Debian: libnats-dev). Only the EventBusNATS target uses
// it, and only when the package is built with the NATS trait.
#include <nats/nats.h>
