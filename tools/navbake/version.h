#pragma once
#define NAVBAKE_VERSION "0.1.0"
