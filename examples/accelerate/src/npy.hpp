// A float32 table as a NumPy .npy file (format 1.0): what numpy.load and
// torch read. Header: magic, version, little-endian header length, a Python
// dict literal padded with spaces to a multiple of 64 bytes, then the data
// in C order.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

inline bool write_npy(std::FILE *out, const std::vector<float> &data, size_t rows, size_t cols)
{
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                         std::to_string(cols) + "), }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header.push_back('\n');
    unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                  (unsigned char)(header.size() & 0xff), (unsigned char)(header.size() >> 8)};
    return std::fwrite(preamble, 1, sizeof preamble, out) == sizeof preamble &&
           std::fwrite(header.data(), 1, header.size(), out) == header.size() &&
           std::fwrite(data.data(), sizeof(float), data.size(), out) == data.size();
}
