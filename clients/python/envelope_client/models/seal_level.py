from enum import StrEnum


class SealLevel(StrEnum):
    B_B = "b-b"
    B_LT = "b-lt"
    B_LTA = "b-lta"
    B_T = "b-t"

    def __str__(self) -> str:
        return str(self.value)
