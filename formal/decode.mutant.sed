# Mutant of rtl/ctrl/mxu_ctrl_decode.sv: LOAD and STORE no longer check their reserved bits [15:12],
# so an encoding the table calls illegal decodes without ILLEGAL_FIELD. decode must reject it.
s/if (tr.rsvd_12 != '0 || /if (/
